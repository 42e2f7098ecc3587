// Asking who holds a log directory's lock without taking it, so read-only tools can warn that a writer is
// running while they read. For this package's cache and tools (`package`), not part of the engine's API.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PosixFileSystem {
    /// The owner recorded in the lock file at `path` (`pid N`) when a process holds the lock, nil when nobody
    /// does or there is no lock file. Never creates or changes a file.
    ///
    /// The probe takes a shared `flock` for a moment and drops it at once; a writer that opens the log in
    /// exactly that moment fails with `.locked` and can retry.
    ///
    /// ```swift
    /// if let holder = PosixFileSystem().lockHolder("/var/lib/app/cache/LOCK") { print("in use by", holder) }
    /// ```
    package func lockHolder(_ path: String) -> String? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { Glibc.close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        guard errno == EWOULDBLOCK else { return nil }
        var holder = [UInt8](repeating: 0, count: 256)
        let got = holder.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return got > 0 ? String(decoding: holder.prefix(got), as: UTF8.self) : "an unknown process"
    }
}

extension SegmentLog {
    /// Who holds the lock of the log in `directory` on the real file system (`pid N`), or nil when no process
    /// has it open for writing. See ``PosixFileSystem/lockHolder(_:)``.
    package static func lockHolder(at directory: String) -> String? {
        PosixFileSystem().lockHolder(joinPath(directory, "LOCK"))
    }
}
