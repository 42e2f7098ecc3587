import Dispatch
import Synchronization

/// An append-only, LZ4-compressed, checksummed log of records in a directory of segment files.
///
/// Records (a kind byte, a key, a value) are committed in atomic batches and get increasing log sequence
/// numbers. Frames of records are the unit of compression, checksum and group commit. Sealed segments are
/// immutable; compaction rewrites them keeping only what the caller says is live. The log knows nothing about
/// what records mean: the layer above replays them (``scan(_:)``) to rebuild its views.
///
/// ```swift
/// let log = try SegmentLog.open(at: "/tmp/demo-log")
/// var batch = WriteBatch()
/// batch.append(kind: 1, key: Array("greeting".utf8), value: Array("hello".utf8))
/// let locations = try log.commit(batch)              // durable when this returns (.full)
/// let record = try log.read(locations[0])            // point read by location
/// try log.scan { view in print(view.lsn, String(decoding: view.key, as: UTF8.self)) }
/// try log.close()
/// ```
///
/// Thread safety: every method may be called from any thread. Concurrent commits are grouped so that they
/// share one write and one sync. One process owns a directory at a time (`LOCK`, see ``StorageError/Code/locked``).
public final class SegmentLog: Sendable {
    public typealias Configuration = SegmentLogConfiguration

    /// The log's directory.
    public let directory: String
    public let configuration: Configuration
    /// What opening the log found (torn tail cut, orphans removed, ...).
    public let recoveryReport: RecoveryReport

    let fileSystem: any FileSystem
    let directoryLock: (any FileLock)?
    let state: Mutex<State>
    let commitQueue = CommitQueue()
    /// Serializes manifest writes; holds the number of the last manifest snapshot written (``writeManifest(_:sequence:)``).
    let manifestWriter = Mutex<UInt64>(0)
    /// Runs the durable part of compactions' publications (CompactionPublication.swift), one at a time.
    let publisher = DispatchQueue(label: "cairn.segment-log.publisher")

    /// Everything mutable, behind one lock.
    struct State {
        var generation: UInt64
        /// The random id in the manifest and every segment header.
        let cacheID: UInt64
        var nextSegmentID: UInt32
        var order: [UInt32]
        var segments: [UInt32: SegmentEntry]
        var activeID: UInt32
        /// End of the zero-filled preallocation of the active segment (>= its length).
        var allocatedEnd: UInt64
        var nextLSN: UInt64
        var cache: FrameCache
        var poisoned: StorageError?
        var isClosed = false
        var hasUnsyncedWrites = false
        /// Bytes of the active segment known durable (synced); written into each new frame's header.
        var syncedEnd: UInt64
        var lastSync: ContinuousClock.Instant = .now
        /// Segments currently being compacted, so two compactions never take the same input.
        var compacting: Set<UInt32> = []
        /// Compactions whose outputs are durable and named by the manifest on disk, not yet switched to here.
        var readyPublications: [ReadyPublication] = []
        /// The number of the last manifest snapshot taken (``SegmentLog/writeManifest(_:sequence:)``).
        var manifestSequence: UInt64 = 0
        /// Rolls done in memory whose publication (the sealed segment synced, the new one named by a manifest on
        /// disk) has not finished, oldest first (RollPublication.swift).
        var pendingRolls: [PendingRoll] = []

        var active: SegmentEntry {
            get { segments[activeID]! }
            set { segments[activeID] = newValue }
        }

        /// The manifest of this state, with the outputs of ready publications in place of their inputs. It names
        /// the segments up to the one the first unpublished roll sealed, as the active one, and none started
        /// after it: a segment a roll started is named only once that roll is published. `publishing` is the
        /// number of pending rolls whose publication writes this manifest.
        func manifest(publishing: Int = 0) -> Manifest {
            let lastNamed = publishing < pendingRolls.count ? pendingRolls[publishing].sealedID : activeID
            var entries = order[...order.firstIndex(of: lastNamed)!].map { segments[$0]!.manifestEntry }
            entries[entries.count - 1] = .active(lastNamed)
            for publication in readyPublications { publication.apply(to: &entries) }
            return Manifest(
                generation: generation, cacheID: cacheID, nextSegmentID: nextSegmentID, lsnFloor: nextLSN, entries: entries)
        }

        func checkUsable() throws {
            if isClosed { throw StorageError(.closed, "the log is closed") }
            if let poisoned { throw poisoned }
        }
    }

    init(
        directory: String, configuration: Configuration, lock: (any FileLock)?, state: State, report: RecoveryReport
    ) {
        self.directory = directory
        self.configuration = configuration
        self.fileSystem = configuration.fileSystem
        self.directoryLock = lock
        self.state = Mutex(state)
        self.recoveryReport = report
        if case .normal(let delay) = configuration.durability, !configuration.readOnly {
            startFlusher(every: delay)
        }
    }

    deinit {
        commitQueue.stop()
        let handles = state.withLock { state in state.isClosed ? [] : state.order.compactMap { state.segments[$0]?.handle } }
        for handle in handles { try? handle.close() }
        directoryLock?.release()
    }

    /// Closes the log: finishes queued commits, syncs, cuts the preallocated tail and releases the lock.
    /// Further calls throw ``StorageError/Code/closed``. Closing twice is harmless.
    ///
    /// - Throws: the log's `.poisoned` error when a sync failed, here or before (a segment roll's publication
    ///   fails on the publisher queue, where no caller hears it), or the error of the last sync: the log is
    ///   closed all the same (handles closed, lock released), but commits made since the last successful sync
    ///   may be lost.
    public func close() throws {
        // Publications in flight finish first (their syncs and manifest writes need the open handles).
        publisher.sync {}
        let writable = !configuration.readOnly
        var failure: (any Error)? = state.withLock { $0.isClosed ? nil : $0.poisoned }
        if writable && failure == nil && state.withLock({ !$0.isClosed }) {
            do { try sync() } catch { failure = error }
        }
        commitQueue.stop()
        // A commit that entered before stop() is still written, after the sync above: publish the rolls it made
        // (or no manifest names its segment) and sync it below, as a clean close promises.
        let lateCommits = commitQueue.drain()
        if writable && lateCommits, let error = publisher.sync(execute: { publishPendingRolls() }) {
            failure = failure ?? error
        }
        let (handles, closeFailure): ([any StorageFile], (any Error)?) = state.withLock { state in
            if state.isClosed { return ([], nil) }
            state.isClosed = true
            var closeFailure: (any Error)?
            if writable && state.poisoned == nil && (lateCommits || state.allocatedEnd > state.active.length) {
                do {
                    if state.allocatedEnd > state.active.length { try state.active.handle.truncate(to: state.active.length) }
                    try state.active.handle.sync()
                } catch {
                    closeFailure = error
                }
            }
            state.cache.removeAll()
            return (state.order.compactMap { state.segments[$0]?.handle }, closeFailure)
        }
        for handle in handles { try? handle.close() }
        directoryLock?.release()
        if let error = failure ?? closeFailure { throw error }
    }

    var segmentTargetSize: UInt64 { UInt64(configuration.segmentTargetSize) }

    func segmentPath(_ id: UInt32) -> String {
        joinPath(directory, SegmentFormat.segmentFileName(id))
    }
}

/// What the log knows about one segment.
struct SegmentEntry {
    var id: UInt32
    var handle: any StorageFile
    var isActive: Bool
    /// Bytes of the file holding data (for the active segment: where the next frame goes).
    var length: UInt64
    var recordCount: UInt64 = 0
    /// Sum of encoded record sizes (uncompressed).
    var recordBytes: UInt64 = 0
    var minLSN: UInt64 = 0
    var maxLSN: UInt64 = 0
    /// Retired records: frame offset → bitset of record indexes.
    var dead: [UInt32: [UInt64]] = [:]
    var deadRecords: UInt64 = 0
    var deadBytes: UInt64 = 0
    /// Where its frames start, once a scan has walked them (FrameOffsets.swift).
    var frameOffsets = FrameOffsets()

    var manifestEntry: Manifest.Entry {
        isActive
            ? .active(id)
            : Manifest.Entry(id: id, isActive: false, length: length, recordCount: recordCount,
                             recordBytes: recordBytes, minLSN: minLSN, maxLSN: maxLSN)
    }

    mutating func noteRecords(count: UInt64, bytes: UInt64, minLSN newMin: UInt64, maxLSN newMax: UInt64) {
        guard count > 0 else { return }
        minLSN = recordCount == 0 ? newMin : min(minLSN, newMin)
        maxLSN = recordCount == 0 ? newMax : max(maxLSN, newMax)
        recordCount += count
        recordBytes += bytes
    }

    /// Marks a record dead; returns false when it already was.
    mutating func retire(_ location: RecordLocation) -> Bool {
        let word = Int(location.index / 64)
        let bit = UInt64(1) << UInt64(location.index % 64)
        var bits = dead[location.frameOffset] ?? []
        if bits.count <= word { bits.append(contentsOf: repeatElement(0, count: word + 1 - bits.count)) }
        if bits[word] & bit != 0 { return false }
        bits[word] |= bit
        dead[location.frameOffset] = bits
        deadRecords += 1
        deadBytes += UInt64(location.size)
        return true
    }

    func isRetired(_ location: RecordLocation) -> Bool {
        guard let bits = dead[location.frameOffset] else { return false }
        let word = Int(location.index / 64)
        return word < bits.count && bits[word] & (UInt64(1) << UInt64(location.index % 64)) != 0
    }
}
