/// What a persistent cache does when opening finds its files damaged (a Cairn addition; Firebase's SDKs stop
/// at launch on a damaged LevelDB). Damage is a damaged or missing MANIFEST, or a segment file that is missing,
/// emptied, cut short or overwritten.
///
/// ```swift
/// settings.cacheSettings = PersistentCacheSettings(sizeBytes: 100 * 1024 * 1024 as NSNumber,
///                                                  directory: URL(fileURLWithPath: "/var/lib/app/cache"),
///                                                  onDamage: .fail)
/// ```
public enum DamagedCacheHandling: Sendable, Hashable, CustomStringConvertible {
    /// The default: the damaged directory is renamed to `<directory>.damaged-<UTC time>` and kept for
    /// inspection, every intact record (pending writes included) is salvaged into a fresh cache at `directory`,
    /// and the instance starts on it. One line naming the damage, the damaged copy and what was kept goes to
    /// standard error, and `cairn inspect` shows the same on the recovered cache. When nothing can be salvaged
    /// the cache starts empty.
    case recover
    /// Every call on the instance fails with `dataLoss`, naming the damage and how to recover it
    /// (`cairn salvage`); nothing in the directory is changed.
    case fail

    public var description: String {
        switch self {
        case .recover: "recover"
        case .fail: "fail"
        }
    }
}
