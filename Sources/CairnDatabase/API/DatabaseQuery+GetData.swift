import CairnDatabaseCore
import Foundation

/// `getData`: the query's current data, once. Data that is complete locally (a `value` observer would fire at once
/// with it) answers at once; otherwise the server is asked, waiting up to 3 s for a connection. When the server
/// refuses or no connection comes, the local data answers if it is complete by then. Otherwise, offline, the
/// completion gets Firebase's error: domain `com.firebase.core`, code 1, "Unable to get latest value for query ...,
/// client offline with no active listeners and no matching disk cache entries", failure reason "Client is
/// offline."; refused, the server's status (`permission_denied`: code 1), where Firebase reports the offline error.
///
/// ```swift
/// let snapshot = try await db.reference(withPath: "config").getData()
/// ```
extension DatabaseQuery {
    public func getData(completion block: @escaping (Error?, DataSnapshot?) -> Void) {
        let queue = db.callbackQueue
        nonisolated(unsafe) let block = block
        if case .failure(let error) = state {
            return queue.async { block(DatabaseErrors.invalidArgument(error), nil) }
        }
        let query = spec
        let ref = self.ref
        db.repo.getValue(query) { result in
            switch result {
            case .success(let node):
                let snapshot = DataSnapshot(ref: ref, node: node, index: query.params.index)
                queue.async { block(nil, snapshot) }
            case .failure(let failure):
                let error = DatabaseErrors.getDataFailed(query, failure)
                queue.async { block(error, nil) }
            }
        }
    }

    public func getData() async throws -> DataSnapshot {
        try await withCheckedThrowingContinuation { continuation in
            getData { error, snapshot in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: snapshot!) }
            }
        }
    }
}
