import SegmentLog
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A ``FileSystem`` around ``SimulatedFileSystem`` that records which durable operations (file and
/// directory syncs, truncations, renames, removals) ran on the thread that made it, and can slow down the syncs
/// of every other thread (the log's publisher queue), so that work left to the queue is still running when the
/// test looks.
///
/// ```swift
/// let fs = ThreadRecordingFileSystem(base: SimulatedFileSystem())
/// let log = try SegmentLog.open(at: "/log", configuration: configuration(fs))
/// try log.append(kind: 1, key: key, value: value)
/// #expect(fs.onOwnerThread.isEmpty)            // nothing synced on this thread
/// ```
public final class ThreadRecordingFileSystem: ForwardingFileSystem, @unchecked Sendable {
    let owner = pthread_self()
    private let slowOtherThreadsMicroseconds: UInt32
    private let recorded = Mutex<[String]>([])

    /// Made on the thread whose durable operations it records; `slowOtherThreadsMicroseconds` delays each sync
    /// made on any other thread.
    public init(base: SimulatedFileSystem, slowOtherThreadsMicroseconds: UInt32 = 0) {
        self.slowOtherThreadsMicroseconds = slowOtherThreadsMicroseconds
        super.init(base: base)
    }

    /// The durable operations that ran on the thread that made this file system, in order.
    public var onOwnerThread: [String] { recorded.withLock { $0 } }

    func note(_ operation: String, sync: Bool = false) {
        if pthread_equal(pthread_self(), owner) != 0 {
            recorded.withLock { $0.append(operation) }
        } else if sync && slowOtherThreadsMicroseconds > 0 {
            usleep(slowOtherThreadsMicroseconds)
        }
    }

    override public func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
        RecordedFile(base: try base.open(path, mode), name: String(path.split(separator: "/").last ?? ""), owner: self)
    }
    override public func removeFile(at path: String) throws {
        note("remove")
        try base.removeFile(at: path)
    }
    override public func rename(_ source: String, to target: String) throws {
        note("rename")
        try base.rename(source, to: target)
    }
    override public func syncDirectory(at path: String) throws {
        note("directory sync", sync: true)
        try base.syncDirectory(at: path)
    }
}

final class RecordedFile: ForwardingStorageFile, @unchecked Sendable {
    let name: String
    let owner: ThreadRecordingFileSystem

    init(base: any StorageFile, name: String, owner: ThreadRecordingFileSystem) {
        self.name = name
        self.owner = owner
        super.init(base: base)
    }

    override func truncate(to size: UInt64) throws {
        owner.note("truncate \(name)")
        try base.truncate(to: size)
    }
    override func sync() throws {
        owner.note("sync \(name)", sync: true)
        try base.sync()
    }
}
