/// An error from the storage engine: a code you can match on, a message a person can act on, and where it
/// happened (file, byte offset, the operating system's errno) when that is known.
///
/// ```swift
/// do {
///     let log = try SegmentLog.open(at: "/var/lib/app/cache")
/// } catch let error as StorageError where error.code == .locked {
///     print("another process uses the cache:", error.message)
/// }
/// ```
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; match the ones you handle and treat the rest alike.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case corruption, io, locked, formatVersion, invalidArgument, notFound, closed, poisoned, notALog
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Stored bytes failed a checksum or a structural check somewhere other than the torn tail of the
        /// active segment. The message names the segment, the offset and what was lost.
        public static let corruption = Code(.corruption)
        /// The operating system reported an I/O failure (see `errno`).
        public static let io = Code(.io)
        /// Another process (or another instance in this process) holds the directory's lock.
        public static let locked = Code(.locked)
        /// The data was written by a newer format version than this code understands.
        public static let formatVersion = Code(.formatVersion)
        /// The caller passed something the engine cannot accept (an empty key, an oversized record, ...).
        public static let invalidArgument = Code(.invalidArgument)
        /// A file or record that should exist does not.
        public static let notFound = Code(.notFound)
        /// The log was closed.
        public static let closed = Code(.closed)
        /// A durability sync failed earlier; the writer stopped accepting writes. Reopen the log to recover
        /// from what is on disk (data that was not synced may be lost, acknowledged data is not).
        public static let poisoned = Code(.poisoned)
        /// The directory or file is not a Cairn segment log.
        public static let notALog = Code(.notALog)

        public var description: String { wrapped.rawValue }
    }

    public var code: Code
    public var message: String
    /// The file the error concerns, when there is one.
    public var path: String?
    /// The byte offset in `path` the error concerns, when there is one.
    public var offset: UInt64?
    /// The operating system's error number, for `io` errors.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, path: String? = nil, offset: UInt64? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.errno = errno
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let path { text += " [\(path)" + (offset.map { " @\($0)" } ?? "") + "]" }
        if let errno { text += " (errno \(errno))" }
        return text
    }
}
