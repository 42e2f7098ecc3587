import CairnModel

/// The outbox: batches of local writes not yet acknowledged or rejected, and the overlays they give
/// documents. Filled in by the mutation-queue work (see Docs/LocalStore.md §3).
struct MutationQueueView {}
