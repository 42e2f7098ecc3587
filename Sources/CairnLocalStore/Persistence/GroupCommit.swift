import Dispatch
import SegmentLog
import Synchronization

/// When a persistent cache's appends become durable (Docs/LocalStore.md §10).
package enum CacheSyncing: Sendable, Equatable {
    /// Each append is durable when it returns, as the log's durability says (`.full`, the default: one
    /// `fdatasync`, shared by concurrent appends). For tools and tests.
    case withEachAppend
    /// Group commit behind the appends (the client core's setting): an append returns once the log has written
    /// it to the operating system, and a background thread syncs behind it; appends that arrive while a sync
    /// runs share the next one. The store reports each sync to ``LocalStore/onDurabilityChange(_:)``.
    case behindAppends
    /// As ``behindAppends``, but nothing syncs until ``LocalStore/syncAppends()``: tests choose the moment.
    case onRequest
}

/// Group commit behind the cache's appends (``CacheSyncing/behindAppends``): the log is opened with durability
/// `.none`, every append notes how far the log goes, and a sync run on a worker thread makes everything up to
/// there durable with one `fdatasync` (``SegmentLog/syncBehindCommits()``, which never holds up an append),
/// then runs again while more was appended meanwhile. It knows which outbox batches are not durable yet, so the
/// write pipeline sends a batch only once it is.
///
/// A failed sync poisons the log (a retried `fdatasync` could report success for data the kernel dropped):
/// syncing stops for good, the handler hears the failure, and every later append fails.
///
/// ```swift
/// let groupCommit = GroupCommit(log: log, inBackground: true)
/// groupCommit.noteAppended(upTo: log.nextLSN)        // after each commit: starts a sync run
/// groupCommit.isDurable(batchID: 7)                   // false until the run that covers it ends
/// ```
package final class GroupCommit: Sendable {
    /// Hears each sync that ended: the sequence number below which every event is durable, or the failure that
    /// stopped syncing. Called on the worker thread (``CacheSyncing/behindAppends``) or in the caller of
    /// ``LocalStore/syncAppends()``.
    package typealias Handler = @Sendable (Result<UInt64, LocalStoreError>) -> Void

    private struct State {
        /// Every event with a lower sequence number is durable.
        var durable: UInt64
        /// The sequence number after the last append noted.
        var appended: UInt64
        var running = false
        var closed = false
        var failure: LocalStoreError?
        var handler: Handler?
        /// Outbox batches appended and maybe not durable yet, with their event's sequence number, ascending.
        var recentBatches: [(batchID: Int, sequence: UInt64)] = []
    }

    private let log: SegmentLog
    private let inBackground: Bool
    private let worker = DispatchQueue(label: "cairn.cache.group-commit")
    private let state: Mutex<State>

    /// Everything `log` holds when this is made counts as durable (opening a log syncs what it recovered).
    init(log: SegmentLog, inBackground: Bool) {
        self.log = log
        self.inBackground = inBackground
        let next = log.nextLSN
        state = Mutex(State(durable: next, appended: next))
    }

    /// Every event with a lower sequence number is durable.
    var durableSequence: UInt64 { state.withLock { $0.durable } }

    /// The failed sync that stopped syncing, if one did.
    var failure: LocalStoreError? { state.withLock { $0.failure } }

    func setHandler(_ handler: Handler?) {
        state.withLock { $0.handler = handler }
    }

    /// Notes that the log holds events up to (not including) `next`; in the background mode, starts a sync run
    /// unless one is running (which then runs once more).
    func noteAppended(upTo next: UInt64) {
        let start = state.withLock { state in
            state.appended = max(state.appended, next)
            guard inBackground, !state.running, !state.closed, state.failure == nil else { return false }
            state.running = true
            return true
        }
        if start { worker.async { self.run() } }
    }

    /// Notes the outbox batch whose `mutationBatchAdded` event got `sequence`.
    func noteBatch(_ batchID: Int, sequence: UInt64) {
        state.withLock { state in
            if sequence >= state.durable { state.recentBatches.append((batchID, sequence)) }
        }
    }

    /// True when the batch's `mutationBatchAdded` event is durable (batches replayed at open always are).
    func isDurable(batchID: Int) -> Bool {
        state.withLock { state in
            guard let entry = state.recentBatches.first(where: { $0.batchID == batchID }) else { return true }
            return entry.sequence < state.durable
        }
    }

    /// Syncs now, in the caller's thread (``CacheSyncing/onRequest``).
    ///
    /// - Throws: the failure of this sync or of an earlier one.
    func syncNow() throws {
        if let failure { throw failure }
        if case .some(.failure(let error)) = syncOnce() { throw error }
    }

    /// Stops syncing: waits for a run in progress. The log's own close then syncs what is left.
    func close() {
        state.withLock { $0.closed = true }
        worker.sync {}
    }

    private func run() {
        while true {
            let more = state.withLock { state in
                let more = !state.closed && state.failure == nil && state.appended > state.durable
                if !more { state.running = false }
                return more
            }
            guard more, syncOnce() != nil else { return }
        }
    }

    /// One sync of everything appended so far; tells the handler. Nil when the log was closed meanwhile.
    private func syncOnce() -> Result<UInt64, LocalStoreError>? {
        let result: Result<UInt64, LocalStoreError>
        do {
            result = .success(try log.syncBehindCommits())
        } catch let error as StorageError where error.code == .closed {
            state.withLock { $0.running = false }
            return nil
        } catch {
            result = .failure(LocalStoreError.wrap(error))
        }
        let handler = state.withLock { state in
            switch result {
            case .success(let durable):
                state.durable = max(state.durable, durable)
                let durableNow = state.durable
                state.recentBatches.removeAll { $0.sequence < durableNow }
            case .failure(let error):
                state.failure = error
                state.running = false
            }
            return state.handler
        }
        handler?(result)
        return result
    }
}
