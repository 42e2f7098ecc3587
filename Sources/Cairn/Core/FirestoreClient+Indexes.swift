import CairnModel
import Foundation
import LocalStore

/// Client-side field indexes (Firebase's `FirestoreClient::ConfigureFieldIndexes` and its `IndexBackfiller`
/// timer): the configuration goes to the cache, and a timer indexes the cached documents in small runs.
///
/// ```swift
/// client.setIndexConfiguration(json: #"{"indexes": [], "fieldOverrides": []}"#) { error in ... }
/// ```
extension FirestoreClient {
    /// Firebase's `kInitialBackfillDelay`, `kRegularBackfillDelay` and documents per backfill run.
    static let initialBackfillDelay: TimeInterval = 15
    static let regularBackfillDelay: TimeInterval = 60
    static let backfillDocumentsPerRun = 50

    /// Replaces the field-index configuration with the `firestore:indexes` JSON of the Firebase CLI; new
    /// indexes serve queries once the backfill timer has indexed the cache. Fails with `invalidArgument`
    /// naming the problem for malformed JSON.
    func setIndexConfiguration(json: String, completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        run({ [self] in try configureIndexes(json) }, completion: { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        })
    }

    private func configureIndexes(_ json: String) throws {
        do {
            try localStore.setIndexConfiguration(json: json)
        } catch let error as LocalStoreError where error.code == .invalidArgument {
            throw FirestoreErrorCode(.invalidArgument, error.message)
        }
    }

    /// One backfill run: indexes up to ``backfillDocumentsPerRun`` documents; returns how many.
    @discardableResult
    func backfillIndexes() throws -> Int {
        try localStore.backfillIndexes(maxDocuments: Self.backfillDocumentsPerRun)
    }
}
