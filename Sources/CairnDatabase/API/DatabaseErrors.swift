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

    static func invalidArgument(_ error: DatabaseCoreError) -> NSError {
        self.error(status: "invalid_argument", reason: error.message)
    }
}
