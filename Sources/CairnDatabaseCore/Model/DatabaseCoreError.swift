/// An error of the Realtime Database core: bad keys, paths, data or query parameters. Never a crash.
///
/// ```swift
/// do { _ = try DatabasePath("a/b.c") } catch let error as DatabaseCoreError { print(error.code, error.message) }
/// ```
package struct DatabaseCoreError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// A key is empty, too long, or holds `.`, `#`, `$`, `[`, `]`, `/` or a control character.
        case invalidKey
        /// A path is too long or too deep.
        case invalidPath
        /// A value cannot be stored: a wrong type, a bad priority, non-finite numbers, too deeply nested.
        case invalidData
        /// Query parameters that Firebase rejects (a second startAt, a key-index bound that is not a string, ...).
        case invalidQuery
        /// The server refused a listen (permission denied, ...); its registrations are cancelled.
        case listenFailed
        /// A wire message is malformed: not JSON, a wrong envelope, a bad frame count, or longer than allowed.
        case invalidMessage
    }

    package let code: Code
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
