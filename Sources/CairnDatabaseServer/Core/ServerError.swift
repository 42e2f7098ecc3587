import CairnDatabaseCore

/// An error the server answers a request with: a code that maps onto Firebase's answer (the WebSocket status
/// string, the REST status code) and a message a person can act on. Never a crash.
///
/// ```swift
/// throw ServerError(.permissionDenied, "writes to /locked are refused")
/// ```
package struct ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// A request that cannot be read: malformed JSON, a missing field, an unknown action.
        case invalidRequest
        /// A path that is not a valid database path (bad keys, too long, too deep).
        case invalidPath
        /// Data that cannot be stored (bad keys, too deeply nested, non-finite numbers, bad priorities).
        case invalidData
        /// Query parameters the server cannot evaluate.
        case invalidQuery
        /// Refused by a test hook or the rules.
        case permissionDenied
        /// A compare-and-set found other data (the hash or ETag did not match).
        case dataStale
        /// The server could not store a write (its data directory failed); nothing was changed.
        case unavailable
    }

    package let code: Code
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The status a WebSocket response carries (`s`): Firebase's `permission_denied` and `datastale`; every
    /// malformed request is `failed`, with the message as its data (an official client reports it).
    package var wireStatus: String {
        switch code {
        case .permissionDenied: WireStatus.permissionDenied
        case .dataStale: WireStatus.dataStale
        case .unavailable: WireStatus.unavailable
        case .invalidRequest, .invalidPath, .invalidData, .invalidQuery: WireStatus.failed
        }
    }

    /// The REST status code: 400 for bad input, 401 for refusals, 412 for a failed `if-match`, 503 when a write
    /// could not be stored.
    package var httpStatus: Int {
        switch code {
        case .permissionDenied: 401
        case .dataStale: 412
        case .unavailable: 503
        case .invalidRequest, .invalidPath, .invalidData, .invalidQuery: 400
        }
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
