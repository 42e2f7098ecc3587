/// How durable a commit is when ``SegmentLog/commit(_:)`` returns. The names follow SQLite's `synchronous`.
public enum Durability: Sendable, Equatable {
    /// `fdatasync` before the commit returns. Commits that arrive while a sync runs share the next one
    /// (group commit). A crash or power loss never loses an acknowledged commit.
    case full
    /// Commits reach the operating system at once and are synced at most `maxDelay` later (a background
    /// flusher bounds the delay). Power loss may lose the last `maxDelay` of commits, never consistency:
    /// what survives is a prefix of the commits, whole batches only. A process crash loses nothing.
    case normal(maxDelay: Duration)
    /// Never sync on commit (structural changes such as segment rolls still sync). For tests and caches
    /// that can be rebuilt: a power loss may lose any number of recent commits, still as a clean prefix.
    case none

    /// `.normal` with a 50 ms bound.
    public static let normal = Durability.normal(maxDelay: .milliseconds(50))
}

/// Settings for a ``SegmentLog``. Every field has a measured default; tests shrink the sizes to exercise
/// segment rolls and frame boundaries.
///
/// ```swift
/// var configuration = SegmentLog.Configuration()
/// configuration.durability = .normal
/// let log = try SegmentLog.open(at: path, configuration: configuration)
/// ```
public struct SegmentLogConfiguration: Sendable {
    /// Where bytes go. Default: the real file system.
    public var fileSystem: any FileSystem = PosixFileSystem()
    /// Default `.full`.
    public var durability: Durability = .full
    /// Uncompressed bytes per frame before a new frame starts. Default 8 KiB, chosen by measurement
    /// (`cairn-bench engine`, 100k ~1 KiB JSON-like records; session 11, Docs/Benchmarks.md): a point read that
    /// misses the frame cache reads and checks its whole frame and decompresses it up to the record, so cold
    /// reads ran at 0.81–1.14x SQLite's with 16 KiB frames, 1.16–1.31x with 8 KiB and 1.36–1.62x with 4 KiB,
    /// while the log grew from 51.4 MB (16 KiB) to 57.1 MB (8 KiB, +11%) and 66.9 MB (4 KiB, +30%); replay
    /// (scans) is 8–10% slower at 8 KiB, and 4 KiB frames slowed cached reads and scans more. Records that
    /// resemble each other compress better across a larger frame: the Firestore cache's encoded documents take
    /// 44% more disk at 8 KiB, so its log (and the Realtime Database cache's) keeps 16 KiB frames.
    public var frameTargetSize: Int = 8 << 10
    /// Bytes per segment before it is sealed and a new one starts. Default 64 MiB. At most 1 GiB.
    public var segmentTargetSize: Int = 64 << 20
    /// Largest accepted record (kind, key and value encoded). Default 16 MiB.
    public var maxRecordSize: Int = 16 << 20
    /// Largest accepted key. Default 64 KiB.
    public var maxKeySize: Int = 64 << 10
    /// Compress frames with LZ4 (incompressible frames are stored raw either way). Default true.
    public var compression: Bool = true
    /// Memory for decompressed frames kept for point reads, and for where scanned segments' frames start (at
    /// most half of it; a segment whose offsets do not fit is read with a guess of its frames' size). Default
    /// 32 MiB.
    public var frameCacheBytes: Int = 32 << 20
    /// The active segment is extended with zeros this many bytes ahead of the writer, so durable commits
    /// overwrite allocated blocks (cheaper syncs than extending the file). 0 disables. Default 1 MiB.
    public var preallocationSize: Int = 1 << 20
    /// Open without taking the lock or changing any byte: no writes, no recovery truncation, no orphan
    /// clean-up. For inspection tools. Default false.
    public var readOnly: Bool = false

    public init() {}

    func validate() throws {
        func bad(_ message: String) -> StorageError { StorageError(.invalidArgument, message) }
        guard (512...(16 << 20)).contains(frameTargetSize) else {
            throw bad("frameTargetSize must be between 512 bytes and 16 MiB, not \(frameTargetSize)")
        }
        guard (4096...(1 << 30)).contains(segmentTargetSize) else {
            throw bad("segmentTargetSize must be between 4 KiB and 1 GiB, not \(segmentTargetSize)")
        }
        guard (64...(32 << 20)).contains(maxRecordSize) else {
            throw bad("maxRecordSize must be between 64 bytes and 32 MiB, not \(maxRecordSize)")
        }
        guard maxKeySize >= 1 && maxKeySize < maxRecordSize else {
            throw bad("maxKeySize must be at least 1 and below maxRecordSize")
        }
        guard frameCacheBytes >= 0, preallocationSize >= 0 else {
            throw bad("frameCacheBytes and preallocationSize must not be negative")
        }
        if case .normal(let delay) = durability, delay <= .zero {
            throw bad("durability .normal needs a positive maxDelay")
        }
    }
}

/// What opening the log found and did.
public struct RecoveryReport: Sendable, Equatable {
    /// True when the directory held no log and a new one was created.
    public var createdNewLog = false
    /// Bytes cut from the end of the active segment: a torn or unfinished write that was never acknowledged
    /// as durable (zero-filled preallocation is not counted).
    public var truncatedBytes: UInt64 = 0
    /// Intact frames that were cut with them because no commit frame followed (an unfinished batch) or
    /// because they came after a damaged frame at the tail.
    public var discardedFrames = 0
    /// Why the active segment's tail ended where it did, when something was cut.
    public var tailProblem: String?
    /// Files left over from an interrupted segment roll, compaction or manifest switch, which were removed.
    public var removedOrphans: [String] = []
    /// Records found in the log.
    public var recordCount: UInt64 = 0
    /// Damage in the active segment followed by intact frames that were written after the damaged bytes had
    /// been synced: corruption, not a torn write. A writer refuses to open such a log (`.corruption`, nothing
    /// cut); a read-only opener reads up to the damage and lists it here, and ``SegmentLog/verify()`` reports it.
    public var activeSegmentDamage: [Damage] = []
}
