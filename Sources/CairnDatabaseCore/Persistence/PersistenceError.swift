/// An error of the Realtime Database cache: a record that cannot be decoded, a cache held by another process, the
/// storage failing. Never a crash; the repo falls back to memory (one logged line) when the cache cannot be used.
///
/// ```swift
/// do { _ = try DatabaseCache.open(at: directory) } catch let error as PersistenceError { print(error) }
/// ```
package struct PersistenceError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// A record's value is malformed (truncated, a count past its end, an unknown tag, a bad key or path).
        case corruptRecord
        /// The record's header names a format version this build does not know.
        case unsupportedVersion
        /// Another process owns the cache directory.
        case locked
        /// The log failed (I/O, a damaged frame that recovery could not salvage).
        case storage
    }

    package let code: Code
    package let message: String
    /// True when the log reported damage (a damaged frame or manifest) or a record could not be decoded: what
    /// recovery moves aside and salvages.
    package let isDamage: Bool

    package init(_ code: Code, _ message: String, isDamage: Bool = false) {
        self.code = code
        self.message = message
        self.isDamage = isDamage || code == .corruptRecord
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
