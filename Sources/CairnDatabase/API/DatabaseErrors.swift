import CairnDatabaseCore
import Foundation

/// The `NSError`s the API reports, as Firebase builds them (`FUtilities errorForStatus:andReason:`): domain
/// `com.firebase.core`, code 1 for `permission_denied`, 2 for `unavailable`, 3 for `write_canceled`, 9999 for any
/// other status; the status as the failure reason, the server's reason (or Firebase's text) as the description.
/// Invalid arguments, which Firebase raises as exceptions, are reported with the status `invalid_argument`.
enum DatabaseErrors {
    static let domain = "com.firebase.core"

    static func error(status: String, reason: String?) -> NSError {
        let codes = ["permission_denied": 1, "unavailable": 2, "write_canceled": 3]
        let texts = ["permission_denied": "Permission Denied", "unavailable": "Service is unavailable", "write_canceled": "Write cancelled by user"]
        return NSError(domain: domain, code: codes[status] ?? 9999, userInfo: [
            NSLocalizedFailureReasonErrorKey: status,
            NSLocalizedDescriptionKey: reason ?? texts[status] ?? status,
        ])
    }

    static func error(_ status: WriteStatus) -> NSError? {
        guard case .failed(let code, let reason) = status else { return nil }
        return error(status: code, reason: reason)
    }

    /// Why `getData` failed. Offline: Firebase's error (code 1, "Client is offline." as the failure reason). A
    /// refusal by the server: its status, as for writes (Firebase reports it as the offline error).
    static func getDataFailed(_ query: QuerySpec, _ failure: GetDataFailure) -> NSError {
        switch failure {
        case .failed(let status, let reason):
            return error(status: status, reason: reason)
        case .offline:
            return NSError(domain: domain, code: 1, userInfo: [
                NSLocalizedFailureReasonErrorKey: "Client is offline.",
                NSLocalizedDescriptionKey: "Unable to get latest value for query \(query), client offline with no active listeners and no matching disk cache entries",
            ])
        }
    }

    static func invalidArgument(_ error: DatabaseCoreError) -> NSError {
        self.error(status: "invalid_argument", reason: error.message)
    }
}
