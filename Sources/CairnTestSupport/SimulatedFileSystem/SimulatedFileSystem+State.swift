import SegmentLog
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The state behind SimulatedFileSystem: directories, inodes, open handles, locks, crash point and faults,
// all guarded by the file system's one mutex.

extension SimulatedFileSystem {
    struct Directory: Sendable {
        var current: [String: Int] = [:]
        var durable: [String: Int] = [:]
    }

    struct OpenFile: Sendable {
        let inode: Int
        let writable: Bool
    }

    struct HeldLock: Sendable {
        let token: Int
        let owner: String
    }

    static let maximumFileSize = 1 << 32

    /// Everything the file system knows, guarded by its one mutex.
    struct State: Sendable {
        var directories: [String: Directory] = ["/": Directory()]
        var inodes: [Int: Inode] = [:]
        var nextInode = 1
        var handles: [Int: OpenFile] = [:]
        var nextHandle = 1
        var locks: [String: HeldLock] = [:]
        var nextLockToken = 1
        var operationCount = 0
        var crashAtOperation: Int?
        var crashedAt: Int?
        var random: SeededRandom
        var faults = Faults()

        init(seed: UInt64) {
            random = SeededRandom(seed: seed)
        }

        // MARK: Lookup

        func fileInode(_ path: String) -> Int? {
            guard let (parent, name) = SimulatedFileSystem.split(path) else { return nil }
            return directories[parent]?.current[name]
        }

        func isDirectory(_ path: String) -> Bool { directories[path] != nil }

        /// Drops an inode no name (current or durable) and no open handle refers to, so long tests that
        /// create and delete many files do not keep every byte ever written.
        mutating func forgetIfUnreachable(_ inode: Int) {
            if handles.values.contains(where: { $0.inode == inode }) { return }
            for directory in directories.values
            where directory.current.values.contains(inode) || directory.durable.values.contains(inode) {
                return
            }
            inodes[inode] = nil
        }

        /// The parent and name of a path whose parent directory must exist.
        func locate(_ path: String, missing: StorageError.Code, _ what: String) throws -> (String, String) {
            guard let (parent, name) = SimulatedFileSystem.split(path) else {
                throw failure(.io, what, path: path, errno: EISDIR)
            }
            if !isDirectory(parent) {
                if fileInode(parent) != nil { throw failure(.io, what, path: path, errno: ENOTDIR) }
                throw failure(missing, what, path: path, errno: ENOENT)
            }
            return (parent, name)
        }

        func failure(
            _ code: StorageError.Code, _ what: String, path: String, offset: UInt64? = nil, errno number: Int32
        ) -> StorageError {
            StorageError(code, "\(what): \(String(cString: strerror(number)))", path: path, offset: offset,
                         errno: number)
        }

        // MARK: Crash and fault gate

        /// Throws when crashed; counts the operation when `counted`, returning whether it is the one that
        /// crashes (the caller then throws ``crashError``); then applies a persistent injected fault.
        mutating func enter(_ operation: InjectedFault.Operation, path: String, counted: Bool) throws -> Bool {
            if let crashedAt {
                throw StorageError(
                    .io, "simulated crash: the file system crashed at operation \(crashedAt); \(operation) refused",
                    path: path, errno: EIO)
            }
            if counted {
                operationCount += 1
                if operationCount == crashAtOperation {
                    crashedAt = operationCount
                    return true
                }
            }
            if faults.persistent.contains(operation) {
                throw failure(.io, "injected fault: \(operation) fails", path: path, errno: EIO)
            }
            return false
        }

        /// ``enter(_:path:counted:)`` for operations with nothing to apply when they crash.
        mutating func step(_ operation: InjectedFault.Operation, path: String, counted: Bool) throws {
            if try enter(operation, path: path, counted: counted) {
                throw crashError(operation, path: path)
            }
        }

        func crashError(_ operation: InjectedFault.Operation, path: String) -> StorageError {
            StorageError(.io, "simulated crash at operation \(operationCount) (\(operation))", path: path, errno: EIO)
        }

        // MARK: Directory operations

        mutating func createDirectory(_ path: String) throws {
            try step(.createDirectory, path: path, counted: true)
            var prefix = ""
            for part in path.split(separator: "/") {
                prefix += "/" + part
                if fileInode(prefix) != nil {
                    throw failure(.io, "cannot create directory", path: prefix, errno: EEXIST)
                }
                if directories[prefix] == nil { directories[prefix] = Directory() }
            }
        }

        mutating func contentsOfDirectory(_ path: String) throws -> [String] {
            try step(.contentsOfDirectory, path: path, counted: false)
            guard let directory = directories[path] else {
                let number = fileInode(path) == nil ? ENOENT : ENOTDIR
                throw failure(.io, "cannot list directory", path: path, errno: number)
            }
            var names = Array(directory.current.keys)
            for other in directories.keys where other != "/" && SimulatedFileSystem.split(other)?.parent == path {
                names.append(SimulatedFileSystem.split(other)!.name)
            }
            return names
        }

        mutating func exists(_ path: String) throws -> Bool {
            try step(.exists, path: path, counted: false)
            return isDirectory(path) || fileInode(path) != nil
        }

        mutating func open(_ path: String, _ mode: FileOpenMode) throws -> Int {
            try step(.open, path: path, counted: mode == .createNew)
            if isDirectory(path) {
                throw failure(.io, "cannot open", path: path, errno: mode == .createNew ? EEXIST : EISDIR)
            }
            let (parent, name) = try locate(path, missing: .notFound, "cannot open")
            let inode: Int
            if let existing = directories[parent]!.current[name] {
                if mode == .createNew { throw failure(.io, "cannot open", path: path, errno: EEXIST) }
                inode = existing
            } else {
                if mode != .createNew { throw failure(.notFound, "cannot open", path: path, errno: ENOENT) }
                inode = nextInode
                nextInode += 1
                inodes[inode] = Inode()
                directories[parent]!.current[name] = inode
            }
            let handle = nextHandle
            nextHandle += 1
            handles[handle] = OpenFile(inode: inode, writable: mode != .readOnly)
            return handle
        }

        mutating func removeFile(_ path: String) throws {
            try step(.removeFile, path: path, counted: true)
            if isDirectory(path) { throw failure(.io, "cannot remove", path: path, errno: EISDIR) }
            let (parent, name) = try locate(path, missing: .io, "cannot remove")
            guard let inode = directories[parent]!.current.removeValue(forKey: name) else {
                throw failure(.io, "cannot remove", path: path, errno: ENOENT)
            }
            forgetIfUnreachable(inode)
        }

        mutating func rename(_ source: String, to target: String) throws {
            try step(.rename, path: source, counted: true)
            let what = "cannot rename to \(target)"
            if isDirectory(source) {
                throw failure(.io, what + " (directories cannot be renamed here)", path: source, errno: EINVAL)
            }
            let (sourceParent, sourceName) = try locate(source, missing: .io, what)
            guard let inode = directories[sourceParent]!.current[sourceName] else {
                throw failure(.io, what, path: source, errno: ENOENT)
            }
            if isDirectory(target) { throw failure(.io, what, path: source, errno: EISDIR) }
            let (targetParent, targetName) = try locate(target, missing: .io, what)
            if source == target { return }
            directories[sourceParent]!.current[sourceName] = nil
            let replaced = directories[targetParent]!.current.updateValue(inode, forKey: targetName)
            if let replaced { forgetIfUnreachable(replaced) }
        }

        mutating func syncDirectory(_ path: String) throws {
            try step(.syncDirectory, path: path, counted: true)
            guard directories[path] != nil else {
                throw failure(.io, "cannot open directory to sync it", path: path,
                              errno: fileInode(path) == nil ? ENOENT : ENOTDIR)
            }
            let forgotten = directories[path]!.durable.values
            directories[path]!.durable = directories[path]!.current
            for inode in forgotten { forgetIfUnreachable(inode) }
        }

        mutating func lock(_ path: String, owner: String) throws -> Int {
            try step(.lock, path: path, counted: false)
            if isDirectory(path) { throw failure(.io, "cannot open lock file", path: path, errno: EISDIR) }
            let (parent, name) = try locate(path, missing: .io, "cannot open lock file")
            let inode: Int
            if let existing = directories[parent]!.current[name] {
                inode = existing
            } else {
                inode = nextInode
                nextInode += 1
                inodes[inode] = Inode()
                directories[parent]!.current[name] = inode
            }
            if let holder = locks[path] {
                throw StorageError(
                    .locked, "the directory is in use by \(holder.owner); close it there first", path: path)
            }
            let token = nextLockToken
            nextLockToken += 1
            locks[path] = HeldLock(token: token, owner: owner)
            inodes[inode]!.apply(.truncate(size: 0))
            inodes[inode]!.apply(.write(offset: 0, bytes: Array(owner.utf8)))
            return token
        }

        mutating func releaseLock(_ path: String, token: Int) {
            if locks[path]?.token == token { locks[path] = nil }
        }

        mutating func setBytes(_ bytes: [UInt8], of path: String) {
            guard let (parent, name) = SimulatedFileSystem.split(path), !isDirectory(path) else { return }
            var prefix = ""
            for part in parent.split(separator: "/") {
                prefix += "/" + part
                if directories[prefix] == nil { directories[prefix] = Directory() }
            }
            let inode = directories[parent]!.current[name] ?? {
                defer { nextInode += 1 }
                return nextInode
            }()
            inodes[inode] = Inode(current: bytes, durable: bytes, pending: [])
            directories[parent]!.current[name] = inode
            if let replaced = directories[parent]!.durable.updateValue(inode, forKey: name), replaced != inode {
                forgetIfUnreachable(replaced)
            }
        }

        // MARK: Handle operations

        func openFile(_ handle: Int, path: String, writing: Bool) throws -> OpenFile {
            guard let file = handles[handle] else {
                throw failure(.io, "the handle is closed", path: path, errno: EBADF)
            }
            if writing && !file.writable {
                throw failure(.io, "the handle is read-only", path: path, errno: EBADF)
            }
            return file
        }

        func checkedOffset(_ offset: UInt64, count: Int, path: String) throws -> Int {
            guard offset <= UInt64(SimulatedFileSystem.maximumFileSize - count) else {
                throw failure(.io, "beyond the simulated size limit", path: path, offset: offset, errno: EFBIG)
            }
            return Int(offset)
        }

        mutating func read(
            _ handle: Int, path: String, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64
        ) throws -> Int {
            try step(.read, path: path, counted: false)
            let file = try openFile(handle, path: path, writing: false)
            let current = inodes[file.inode]!.current
            guard offset < UInt64(current.count) else { return 0 }
            let start = Int(offset)
            let count = min(buffer.count, current.count - start)
            if count > 0 {
                current.withUnsafeBytes { source in
                    buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
                }
            }
            return count
        }

        mutating func write(_ handle: Int, path: String, bytes: [UInt8], at offset: UInt64) throws {
            if try enter(.write, path: path, counted: true) {
                // A torn write: a random prefix (possibly empty, never all) reaches the page cache first.
                if let file = handles[handle], file.writable, !bytes.isEmpty,
                   let start = try? checkedOffset(offset, count: bytes.count, path: path) {
                    let kept = random.below(bytes.count)
                    if kept > 0 { inodes[file.inode]!.apply(.write(offset: start, bytes: Array(bytes[..<kept]))) }
                }
                throw crashError(.write, path: path)
            }
            let file = try openFile(handle, path: path, writing: true)
            let start = try checkedOffset(offset, count: bytes.count, path: path)
            if faults.failingWrites > 0 {
                faults.failingWrites -= 1
                throw failure(.io, "injected fault: write failed", path: path, offset: offset, errno: ENOSPC)
            }
            if let kept = faults.shortWrite {
                faults.shortWrite = nil
                let prefix = min(max(kept, 0), bytes.count)
                if prefix > 0 { inodes[file.inode]!.apply(.write(offset: start, bytes: Array(bytes[..<prefix]))) }
                throw failure(.io, "injected fault: short write (\(prefix) of \(bytes.count) bytes)", path: path,
                              offset: offset + UInt64(prefix), errno: ENOSPC)
            }
            if !bytes.isEmpty { inodes[file.inode]!.apply(.write(offset: start, bytes: bytes)) }
        }

        mutating func size(_ handle: Int, path: String) throws -> UInt64 {
            try step(.size, path: path, counted: false)
            return UInt64(inodes[try openFile(handle, path: path, writing: false).inode]!.current.count)
        }

        mutating func truncate(_ handle: Int, path: String, to size: UInt64) throws {
            try step(.truncate, path: path, counted: true)
            let file = try openFile(handle, path: path, writing: false)
            if !file.writable {  // ftruncate on a read-only descriptor fails with EINVAL, not EBADF
                throw failure(.io, "truncate failed", path: path, offset: size, errno: EINVAL)
            }
            let length = try checkedOffset(size, count: 0, path: path)
            inodes[file.inode]!.apply(.truncate(size: length))
        }

        mutating func sync(_ handle: Int, path: String) throws {
            try step(.sync, path: path, counted: true)
            let file = try openFile(handle, path: path, writing: false)
            if faults.failingSyncs > 0 {
                faults.failingSyncs -= 1
                throw failure(.io, "injected fault: fdatasync failed", path: path, errno: EIO)
            }
            inodes[file.inode]!.durable = inodes[file.inode]!.current
            inodes[file.inode]!.pending = []
        }

        mutating func close(_ handle: Int, path: String) throws {
            let gate = Result { try step(.close, path: path, counted: false) }
            if crashedAt != nil { try gate.get() }
            // As with POSIX close, the handle is gone even when closing reports an (injected) error.
            guard let file = handles.removeValue(forKey: handle) else {
                throw failure(.io, "close failed", path: path, errno: EBADF)
            }
            forgetIfUnreachable(file.inode)
            try gate.get()
        }
    }
}
