import Foundation

/// The cache size that turns garbage collection off (Firebase's `FirestoreCacheSizeUnlimited`).
///
/// ```swift
/// settings.cacheSettings = PersistentCacheSettings(sizeBytes: FirestoreCacheSizeUnlimited as NSNumber)
/// ```
public let FirestoreCacheSizeUnlimited: Int64 = -1

/// The smallest cache size Firestore accepts: 1 MiB.
let minimumCacheSizeBytes: Int64 = 1_048_576
/// The default cache size: 100 MiB.
let defaultCacheSizeBytes: Int64 = 104_857_600

/// The kind of cache a Firestore instance keeps: ``PersistentCacheSettings`` or ``MemoryCacheSettings`` (the only
/// two; as in Firebase, other conformances are not supported).
///
/// ```swift
/// let settings = FirestoreSettings()
/// settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings())
/// ```
public protocol LocalCacheSettings: Sendable {}

/// A cache on disk that survives restarts (the default). The size is the target of the garbage collector, not a
/// hard limit: above it, the least recently used documents that no listener needs are removed.
///
/// Cairn keeps the cache in `directory`, by default `$XDG_DATA_HOME/cairn/<project>/<database>` (with
/// `~/.local/share` when `XDG_DATA_HOME` is unset).
///
/// ```swift
/// settings.cacheSettings = PersistentCacheSettings(sizeBytes: 50 * 1024 * 1024 as NSNumber)
/// settings.cacheSettings = PersistentCacheSettings(sizeBytes: 50 * 1024 * 1024 as NSNumber,
///                                                  directory: URL(fileURLWithPath: "/var/lib/app/cache"))
/// ```
///
/// A size below 1 MiB (other than ``FirestoreCacheSizeUnlimited``) is reported as `invalidArgument` by the first
/// call on the Firestore instance that uses these settings.
///
/// A cache found damaged when the instance starts is recovered by default: see ``DamagedCacheHandling``.
public final class PersistentCacheSettings: LocalCacheSettings, Hashable, CustomStringConvertible {
    /// The garbage collector's target in bytes.
    public let sizeBytes: Int64
    /// Where the cache lives; `nil` for the default directory.
    public let directory: URL?
    /// What happens when the cache is found damaged on open (Cairn): recover by itself (the default) or fail.
    public let onDamage: DamagedCacheHandling

    /// A 100 MiB cache in the default directory.
    public convenience init() {
        self.init(sizeBytes: NSNumber(value: defaultCacheSizeBytes))
    }

    /// A cache of `size` bytes (at least 1 MiB, or ``FirestoreCacheSizeUnlimited``).
    public convenience init(sizeBytes size: NSNumber) {
        self.init(sizeBytes: size, directory: nil)
    }

    /// A cache of `size` bytes in `directory`, recovering from damage or failing on it (Cairn).
    public init(sizeBytes size: NSNumber, directory: URL?, onDamage: DamagedCacheHandling = .recover) {
        self.sizeBytes = size.int64Value
        self.directory = directory
        self.onDamage = onDamage
    }

    public static func == (a: PersistentCacheSettings, b: PersistentCacheSettings) -> Bool {
        a.sizeBytes == b.sizeBytes && a.directory == b.directory && a.onDamage == b.onDamage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sizeBytes)
        hasher.combine(directory)
        hasher.combine(onDamage)
    }

    public var description: String {
        "PersistentCacheSettings(sizeBytes: \(sizeBytes), directory: \(directory?.path ?? "default"), onDamage: \(onDamage))"
    }
}

/// A cache in memory only: nothing survives the process; offline reads and writes still work while it runs.
///
/// ```swift
/// settings.cacheSettings = MemoryCacheSettings()                                   // LRU GC towards 100 MiB
/// settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings(sizeBytes: 10_000_000))
/// settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
/// ```
public final class MemoryCacheSettings: LocalCacheSettings, CustomStringConvertible {
    public let garbageCollectorSettings: any MemoryGarbageCollectorSettings

    /// A memory cache with LRU garbage collection towards 100 MiB, Firebase's default: documents stay in memory
    /// after their listeners and pending writes are gone, so `getDocument(source: .cache)` still finds them.
    public convenience init() {
        self.init(garbageCollectorSettings: MemoryLRUGCSettings())
    }

    public init(garbageCollectorSettings: any MemoryGarbageCollectorSettings) {
        self.garbageCollectorSettings = garbageCollectorSettings
    }

    public var description: String { "MemoryCacheSettings(\(garbageCollectorSettings))" }
}

/// How a memory cache drops documents: ``MemoryEagerGCSetting`` or ``MemoryLRUGCSettings``.
///
/// ```swift
/// let gc: any MemoryGarbageCollectorSettings = MemoryLRUGCSettings(sizeBytes: 5_000_000)
/// settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: gc)
/// ```
public protocol MemoryGarbageCollectorSettings: Sendable {}

/// Drop a document as soon as no listener or pending write needs it. The name is Firebase's Swift name for
/// `FIRMemoryEagerGCSettings` (singular, unlike ``MemoryLRUGCSettings``).
///
/// ```swift
/// MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
/// ```
public final class MemoryEagerGCSetting: MemoryGarbageCollectorSettings, CustomStringConvertible {
    public init() {}

    public var description: String { "MemoryEagerGCSetting()" }
}

/// Keep documents up to a size target and drop the least recently used beyond it (the memory cache's default).
///
/// ```swift
/// MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings(sizeBytes: 20 * 1024 * 1024 as NSNumber))
/// ```
public final class MemoryLRUGCSettings: MemoryGarbageCollectorSettings, CustomStringConvertible {
    /// The target size in bytes (at least 1 MiB, or ``FirestoreCacheSizeUnlimited``).
    public let sizeBytes: Int64

    /// A 100 MiB target.
    public convenience init() {
        self.init(sizeBytes: NSNumber(value: defaultCacheSizeBytes))
    }

    public init(sizeBytes size: NSNumber) {
        self.sizeBytes = size.int64Value
    }

    public var description: String { "MemoryLRUGCSettings(sizeBytes: \(sizeBytes))" }
}

/// Checks a cache size as Firebase does (`kMinimumCacheSizeBytes`).
func validateCacheSize(_ size: Int64) throws(FirestoreErrorCode) {
    if size != FirestoreCacheSizeUnlimited && size < minimumCacheSizeBytes {
        throw FirestoreErrorCode(
            .invalidArgument,
            "Cache size must be set to at least \(minimumCacheSizeBytes) bytes (or FirestoreCacheSizeUnlimited), "
                + "but was \(size).")
    }
}
