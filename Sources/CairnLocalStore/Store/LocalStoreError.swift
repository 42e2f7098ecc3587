import SegmentLog

/// An error from the cache: a code, a message a person can act on, and the storage error beneath it if any.
package struct LocalStoreError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// Stored bytes could not be decoded.
        case dataLoss
        /// The storage engine failed (see `storage`).
        case storage
        /// The caller asked for something invalid.
        case invalidArgument
        /// The store was closed.
        case closed
    }

    package var code: Code
    package var message: String
    package var storage: StorageError?

    package init(_ code: Code, _ message: String, storage: StorageError? = nil) {
        self.code = code
        self.message = message
        self.storage = storage
    }

    static func dataLoss(_ message: String) -> LocalStoreError { LocalStoreError(.dataLoss, message) }

    static func wrap(_ error: any Error) -> LocalStoreError {
        if let error = error as? LocalStoreError { return error }
        if let error = error as? StorageError { return LocalStoreError(.storage, error.message, storage: error) }
        return LocalStoreError(.storage, "\(error)")
    }

    package var description: String { "\(code.rawValue): \(message)" + (storage.map { " (\($0))" } ?? "") }
}
