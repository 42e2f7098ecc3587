/// The file operations the engine needs, and nothing more. Every byte the engine reads or writes goes
/// through this protocol, so tests can run it on memory (`SimulatedFileSystem`, in the package's test support)
/// and crash it at any operation, while production uses ``PosixFileSystem``.
///
/// Paths are plain strings joined with `/`. Implementations must be safe to call from several threads.
public protocol FileSystem: Sendable {
    /// Creates the directory and any missing parents; succeeds when it exists already.
    func createDirectory(at path: String) throws
    /// The names (not paths) of the entries in a directory, in no particular order.
    func contentsOfDirectory(at path: String) throws -> [String]
    /// Whether a file or directory exists at `path`.
    func exists(_ path: String) throws -> Bool
    /// Opens a file. See ``FileOpenMode``.
    func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile
    /// Removes a file. The removal is durable only after ``syncDirectory(at:)`` on its directory.
    func removeFile(at path: String) throws
    /// Atomically replaces `target` with `source`. Durable only after ``syncDirectory(at:)``.
    func rename(_ source: String, to target: String) throws
    /// Makes creations, removals and renames in the directory durable (`fsync` on the directory).
    func syncDirectory(at path: String) throws
    /// Takes an exclusive, non-blocking lock on `path` (created if missing) and records `owner` in it.
    /// Fails with ``StorageError/Code/locked``, naming the current holder, when someone else holds it.
    func lock(_ path: String, owner: String) throws -> any FileLock
}

/// How ``FileSystem/open(_:_:)`` opens a file.
public enum FileOpenMode: Sendable {
    /// Read only; the file must exist.
    case readOnly
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write; the file must not exist yet.
    case createNew
}

/// An open file. Reads and writes are positional, so a handle has no cursor to share.
public protocol StorageFile: AnyObject, Sendable {
    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (fewer only at end of file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int
    /// Writes all of `bytes` at `offset`, extending the file if needed, or throws.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// The file's current size in bytes.
    func size() throws -> UInt64
    /// Cuts or extends (with zeros) the file to `size` bytes.
    func truncate(to size: UInt64) throws
    /// Makes the file's data durable (`fdatasync`). A failure here means data may be lost: the engine stops.
    func sync() throws
    /// Closes the handle. Further calls fail.
    func close() throws
}

/// A held lock; released by ``release()`` (or when the process ends).
public protocol FileLock: AnyObject, Sendable {
    func release()
}

extension StorageFile {
    /// Reads exactly `count` bytes at `offset`, or fewer when the file ends first.
    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try bytes.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        if got < count { bytes.removeLast(count - got) }
        return bytes
    }

    /// Writes `bytes` at `offset`.
    public func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// The whole file.
    public func readAll() throws -> [UInt8] {
        try read(at: 0, count: Int(try size()))
    }
}

/// Joins path components with `/`.
@inline(__always)
func joinPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}
