/// An error in the data model: a path, field path, value, mutation or query that Firestore would reject.
/// `code` uses the Firestore error code names (the public API maps it onto `FirestoreErrorCode`).
package struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: String, Sendable, Equatable {
        /// The caller passed something Firestore does not accept; `message` says what and why.
        case invalidArgument
        /// Stored bytes could not be decoded (a document or index entry is damaged or from a newer version).
        case dataLoss
        /// The operation is not valid in the current state (e.g. a precondition failed).
        case failedPrecondition
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package static func invalidArgument(_ message: String) -> ModelError { ModelError(.invalidArgument, message) }

    package var description: String { "\(code.rawValue): \(message)" }
}
