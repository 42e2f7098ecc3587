import SegmentLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies of a cache's files, as private as the cache itself: the directory is created `0700` and every file
/// `0600` by `mkdir`/`open` (never chmod'ed afterwards), whatever the source's modes and the umask. Salvage and
/// the garbage collector's dry run work on such copies; `FileManager.copyItem` would carry an older cache's
/// world-readable modes over, and its directories follow the umask.
///
/// ```swift
/// try PrivateCopy.createDirectory(output)
/// try PrivateCopy.copyFile(source + "/MANIFEST", to: output + "/MANIFEST")
/// ```
enum PrivateCopy {
    /// How much of a file one read moves.
    private static let chunkSize = 1 << 20

    /// Creates the directory `path` (`0700`); its parent must exist and `path` must not.
    static func createDirectory(_ path: String) throws {
        if mkdir(path, PosixFileSystem.directoryMode) != 0 {
            let reason = String(cString: strerror(errno))
            throw InspectionError(.io, "cannot create directory \(path): \(reason)")
        }
    }

    /// Copies the file `source` into the new file `target` (`0600`, through ``PosixFileSystem``), durably.
    static func copyFile(_ source: String, to target: String) throws {
        let fileSystem = PosixFileSystem()
        let input = try fileSystem.open(source, .readOnly)
        defer { try? input.close() }
        let output = try fileSystem.open(target, .createNew)
        defer { try? output.close() }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset: UInt64 = 0
        while true {
            let got = try buffer.withUnsafeMutableBytes { try input.read(into: $0, at: offset) }
            if got == 0 { break }
            try buffer.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0.prefix(got)), at: offset) }
            offset += UInt64(got)
        }
        try output.sync()
    }
}
