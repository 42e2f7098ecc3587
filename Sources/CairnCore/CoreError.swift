import CairnLocalStore
import SegmentLog

extension FirestoreErrorCode {
    /// A cache error as the API reports it: data loss stays data loss, a bad call is an internal error (the core
    /// passed something the cache refuses), storage trouble is `unavailable`, a closed cache `failedPrecondition`.
    package static func fromCache(_ error: any Error) -> FirestoreErrorCode {
        if let error = error as? FirestoreErrorCode { return error }
        guard let error = error as? LocalStoreError else { return FirestoreErrorCode(.internal, "\(error)") }
        switch error.code {
        case .dataLoss: return FirestoreErrorCode(.dataLoss, "The local cache is damaged: \(error.message)")
        case .invalidArgument: return FirestoreErrorCode(.internal, "The local cache refused an operation: \(error.message)")
        case .storage where error.storage?.code == .locked:
            return FirestoreErrorCode(
                .failedPrecondition,
                "The persistent cache is in use by another process (\(error.message)). One process owns a cache "
                    + "directory at a time: stop the other process or use another directory.")
        case .storage: return FirestoreErrorCode(.unavailable, "The local cache could not be read or written: \(error.message)")
        case .closed: return FirestoreErrorCode(.failedPrecondition, "The client has already been terminated.")
        }
    }
}
