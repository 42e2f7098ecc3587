import CairnModel

/// Targets (listened queries), their membership, and the cache-wide globals. Filled in by the targets work
/// (see Docs/LocalStore.md §3).
struct TargetView {}
