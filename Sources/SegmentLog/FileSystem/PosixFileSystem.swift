import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real file system, through POSIX calls: `pread`/`pwrite`, `fdatasync` (`F_FULLFSYNC` on Apple
/// platforms), `fsync` on directories, `rename`, and `flock` for the directory lock.
///
/// Everything it creates is private to the user: directories `0700`, files `0600`, given as the mode of
/// `mkdir`/`open` itself, so no other user can read a cache even for a moment and whatever the umask allows.
/// A directory that already exists keeps its mode.
public struct PosixFileSystem: FileSystem {
    /// `rwx------`: the mode of every directory this file system creates.
    package static let directoryMode: mode_t = S_IRWXU
    /// `rw-------`: the mode of every file this file system creates (segments, manifests, the lock file).
    package static let fileMode: mode_t = S_IRUSR | S_IWUSR

    public init() {}

    public func createDirectory(at path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, Self.directoryMode) != 0 && errno != EEXIST {
                throw posixError("cannot create directory", path: prefix)
            }
            prefix += "/"
        }
    }

    public func contentsOfDirectory(at path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw posixError("cannot list directory", path: path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func exists(_ path: String) throws -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return true }
        if errno == ENOENT || errno == ENOTDIR { return false }
        throw posixError("cannot stat", path: path)
    }

    public func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        }
        let fd = Glibc.open(path, flags | O_CLOEXEC, Self.fileMode)
        if fd < 0 {
            let code: StorageError.Code = errno == ENOENT ? .notFound : .io
            throw posixError("cannot open", path: path, code: code)
        }
        return PosixFileHandle(fd: fd, path: path)
    }

    public func removeFile(at path: String) throws {
        if unlink(path) != 0 { throw posixError("cannot remove", path: path) }
    }

    public func rename(_ source: String, to target: String) throws {
        if Glibc.rename(source, target) != 0 { throw posixError("cannot rename to \(target)", path: source) }
    }

    public func syncDirectory(at path: String) throws {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw posixError("cannot open directory to sync it", path: path) }
        defer { Glibc.close(fd) }
        if fsync(fd) != 0 { throw posixError("directory fsync failed", path: path) }
    }

    public func lock(_ path: String, owner: String) throws -> any FileLock {
        let fd = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, Self.fileMode)
        if fd < 0 { throw posixError("cannot open lock file", path: path) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            var holder = [UInt8](repeating: 0, count: 256)
            let got = holder.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            Glibc.close(fd)
            if failure == EWOULDBLOCK {
                let name = got > 0 ? String(decoding: holder.prefix(got), as: UTF8.self) : "an unknown process"
                throw StorageError(
                    .locked, "the directory is in use by \(name); close it there first", path: path)
            }
            errno = failure
            throw posixError("cannot lock", path: path)
        }
        let text = Array(owner.utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return PosixFileLock(fd: fd)
    }
}

/// The owner string a lock records: `pid N` of this process.
package func currentProcessDescription() -> String {
    "pid \(getpid())"
}

final class PosixFileHandle: StorageFile {
    let fd: Int32
    let path: String
    /// Set by `close`; otherwise the descriptor is closed when the last reference goes, so a reader that
    /// still holds the handle of a segment compaction removed can finish its read.
    private let isClosed = Mutex(false)

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        if !isClosed.withLock({ $0 }) { Glibc.close(fd) }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw posixError("read failed", path: path, offset: offset + UInt64(done))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw posixError("write failed", path: path, offset: offset + UInt64(done))
            }
            done += n
        }
    }

    func size() throws -> UInt64 {
        var info = stat()
        if fstat(fd, &info) != 0 { throw posixError("fstat failed", path: path) }
        return UInt64(info.st_size)
    }

    func truncate(to size: UInt64) throws {
        if ftruncate(fd, off_t(size)) != 0 { throw posixError("truncate failed", path: path, offset: size) }
    }

    func sync() throws {
        #if canImport(Darwin)
        let result = fcntl(fd, F_FULLFSYNC)
        #else
        let result = fdatasync(fd)
        #endif
        if result != 0 { throw posixError("fdatasync failed", path: path) }
    }

    func close() throws {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if wasClosed { return }
        if Glibc.close(fd) != 0 { throw posixError("close failed", path: path) }
    }
}

final class PosixFileLock: FileLock {
    /// The lock file's descriptor until released; releasing twice is harmless (the descriptor number could
    /// already belong to another file).
    private let fd: Mutex<Int32?>
    init(fd: Int32) { self.fd = Mutex(fd) }
    func release() {
        guard let descriptor = fd.withLock({ value in defer { value = nil }; return value }) else { return }
        _ = flock(descriptor, LOCK_UN)
        Glibc.close(descriptor)
    }
}

func posixError(
    _ what: String, path: String, offset: UInt64? = nil, code: StorageError.Code = .io
) -> StorageError {
    let number = errno
    let reason = String(cString: strerror(number))
    return StorageError(code, "\(what): \(reason)", path: path, offset: offset, errno: number)
}
