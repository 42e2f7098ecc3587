import CairnModel
import Foundation
import CairnLocalStore

/// Client-side field indexes (Firebase's `FirestoreClient::ConfigureFieldIndexes` and its `IndexBackfiller`
/// timer): the configuration goes to the cache, and a timer indexes the cached documents in small runs.
///
/// ```swift
/// client.setIndexConfiguration(json: #"{"indexes": [], "fieldOverrides": []}"#) { error in ... }
/// ```
extension FirestoreClient {
    /// Firebase waits 15 s, then indexes 50 documents a minute, because its index entries persist. Cairn
    /// rebuilds index entries from the documents after every open (Docs/LocalStore.md §8), so it starts after
    /// 1 s and indexes in slices of at most ``backfillSlice`` (about 60 documents: 1,000 cost ~30 ms), again
    /// after ``busyBackfillDelay`` while a slice found work. A slice holds the client's queue, so it ends early
    /// when another operation waits: a write or a listener's snapshot waits for one document's indexing (a
    /// 1,000-document run held the queue for 30 ms, the tail of `listener_latency`), and the queue is idle
    /// half of the time until the backfill is done: 100k documents are indexed in ~6 s when nothing else runs
    /// (while other operations keep arriving, a slice may index one document only).
    package static let initialBackfillDelay: TimeInterval = 1
    package static let backfillSlice: Duration = .milliseconds(2)
    package static let busyBackfillDelay: TimeInterval = 0.002
    package static let regularBackfillDelay: TimeInterval = 60
    package static let backfillDocumentsPerRun = 1_000

    /// Replaces the field-index configuration with the `firestore:indexes` JSON of the Firebase CLI; new
    /// indexes serve queries once the backfill timer has indexed the cache. Fails with `invalidArgument`
    /// naming the problem for malformed JSON.
    package func setIndexConfiguration(json: String, completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        run({ [self] in try configureIndexes(json) }, completion: { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        })
    }

    /// Turns the automatic creation of client-side indexes on or off.
    package func setIndexAutoCreationEnabled(_ enabled: Bool) {
        run({ [self] in try localStore.setIndexAutoCreationEnabled(enabled) }, completion: { _ in })
    }

    /// Deletes every client-side field index, configured or created automatically.
    package func deleteAllFieldIndexes() {
        run({ [self] in try localStore.deleteAllFieldIndexes() }, completion: { _ in })
    }

    private func configureIndexes(_ json: String) throws {
        do {
            try localStore.setIndexConfiguration(json: json)
        } catch let error as LocalStoreError where error.code == .invalidArgument {
            throw FirestoreErrorCode(.invalidArgument, error.message)
        }
    }

    /// One backfill slice: indexes up to ``backfillDocumentsPerRun`` documents, stopping after
    /// ``backfillSlice`` or as soon as another operation waits for the queue (``AsyncQueue/hasWaitingOperations``:
    /// a write or a remote event then waits for one document's indexing, not the slice); returns how many.
    @discardableResult
    package func backfillIndexes() throws -> Int {
        try localStore.backfillIndexes(
            maxDocuments: Self.backfillDocumentsPerRun, deadline: ContinuousClock.now + Self.backfillSlice
        ) { [queue] in queue.hasWaitingOperations }
    }
}
