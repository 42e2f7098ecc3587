import SegmentLog

/// A ``FileSystem`` that passes every call to `base`. Test file systems subclass it and override only what they
/// count, delay, record or fail, and wrap the files they open in a ``ForwardingStorageFile`` subclass.
///
/// ```swift
/// final class CountingSyncs: ForwardingFileSystem, @unchecked Sendable {
///     override func syncDirectory(at path: String) throws {
///         count += 1
///         try base.syncDirectory(at: path)
///     }
/// }
/// ```
open class ForwardingFileSystem: FileSystem, @unchecked Sendable {
    /// The file system underneath.
    public let base: any FileSystem

    public init(base: any FileSystem) {
        self.base = base
    }

    open func createDirectory(at path: String) throws { try base.createDirectory(at: path) }
    open func contentsOfDirectory(at path: String) throws -> [String] { try base.contentsOfDirectory(at: path) }
    open func exists(_ path: String) throws -> Bool { try base.exists(path) }
    open func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile { try base.open(path, mode) }
    open func removeFile(at path: String) throws { try base.removeFile(at: path) }
    open func rename(_ source: String, to target: String) throws { try base.rename(source, to: target) }
    open func syncDirectory(at path: String) throws { try base.syncDirectory(at: path) }
    open func lock(_ path: String, owner: String) throws -> any FileLock { try base.lock(path, owner: owner) }
}

/// A ``StorageFile`` that passes every call to `base`; a test file system's files subclass it and override what
/// they watch.
open class ForwardingStorageFile: StorageFile, @unchecked Sendable {
    /// The file underneath.
    public let base: any StorageFile

    public init(base: any StorageFile) {
        self.base = base
    }

    open func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try base.read(into: buffer, at: offset)
    }
    open func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try base.write(bytes, at: offset) }
    open func size() throws -> UInt64 { try base.size() }
    open func truncate(to size: UInt64) throws { try base.truncate(to: size) }
    open func sync() throws { try base.sync() }
    open func close() throws { try base.close() }
}
