// The handles and locks SimulatedFileSystem hands out: thin references into its state.

import SegmentLog
import Synchronization

/// A handle on a ``SimulatedFileSystem`` file; its state lives in the file system's mutex.
final class SimulatedFileHandle: StorageFile {
    let fileSystem: SimulatedFileSystem
    let id: Int
    let path: String

    init(fileSystem: SimulatedFileSystem, id: Int, path: String) {
        self.fileSystem = fileSystem
        self.id = id
        self.path = path
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try fileSystem.state.withLock { try $0.read(id, path: path, into: buffer, at: offset) }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        let copy = [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            if !bytes.isEmpty { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes) }
            count = bytes.count
        }
        try fileSystem.state.withLock { try $0.write(id, path: path, bytes: copy, at: offset) }
    }

    func size() throws -> UInt64 {
        try fileSystem.state.withLock { try $0.size(id, path: path) }
    }

    func truncate(to size: UInt64) throws {
        try fileSystem.state.withLock { try $0.truncate(id, path: path, to: size) }
    }

    func sync() throws {
        try fileSystem.state.withLock { try $0.sync(id, path: path) }
    }

    func close() throws {
        try fileSystem.state.withLock { try $0.close(id, path: path) }
    }
}

/// A lock held in a ``SimulatedFileSystem``'s in-process registry.
final class SimulatedFileLock: FileLock {
    let fileSystem: SimulatedFileSystem
    let path: String
    let token: Int

    init(fileSystem: SimulatedFileSystem, path: String, token: Int) {
        self.fileSystem = fileSystem
        self.path = path
        self.token = token
    }

    func release() {
        fileSystem.state.withLock { $0.releaseLock(path, token: token) }
    }
}
