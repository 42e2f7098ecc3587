import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The permission bits of everything under a directory, for tests of the rule that a cache is private: every
/// directory it creates is `rwx------` and every file `rw-------`.
///
/// ```swift
/// let modes = try FileModes(under: cache)
/// #expect(modes.notPrivate.isEmpty, "\(modes.notPrivate)")
/// ```
public struct FileModes: Sendable {
    public struct Entry: Sendable, CustomStringConvertible {
        public var path: String
        public var isDirectory: Bool
        /// The permission bits (`st_mode & 0o7777`).
        public var mode: UInt32

        public var description: String { "\(path) \(isDirectory ? "dir" : "file") \(String(mode, radix: 8))" }
    }

    /// `root` itself, then everything below it (symbolic links are not followed; entries deleted while listing are left out).
    public var entries: [Entry]

    /// Stats `root` and every entry below it.
    public init(under root: String) throws {
        entries = []
        var pending = [root]
        while let path = pending.popLast() {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                // A file deleted between listing its directory and this stat (a log deletes compacted segments on
                // a background queue) has no mode left to check.
                if errno == ENOENT && path != root { continue }
                throw FileModesError(message: "cannot stat \(path): \(String(cString: strerror(errno)))")
            }
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            entries.append(Entry(path: path, isDirectory: isDirectory, mode: UInt32(info.st_mode & 0o7777)))
            if isDirectory {
                pending += try FileManager.default.contentsOfDirectory(atPath: path).map { path + "/" + $0 }
            }
        }
    }

    /// The entries that are not private: a directory whose mode is not `0700`, a file whose mode is not `0600`.
    public var notPrivate: [Entry] {
        entries.filter { $0.mode != ($0.isDirectory ? 0o700 : 0o600) }
    }

    public var files: [Entry] { entries.filter { !$0.isDirectory } }
    public var directories: [Entry] { entries.filter(\.isDirectory) }
}

public struct FileModesError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Runs `body` with the process's umask set to `mask`, restoring the previous one after. The umask is shared
/// by every thread of the process, and tests run in parallel: use it with the usual `0o022` (so a test of file
/// modes does not depend on the caller's umask); test other masks in a child process (`sh -c 'umask 000; ...'`).
public func withUmask<T>(_ mask: mode_t, _ body: () throws -> T) rethrows -> T {
    let previous = umask(mask)
    defer { umask(previous) }
    return try body()
}

/// ``withUmask(_:_:)`` for an asynchronous body.
public func withUmask<T>(_ mask: mode_t, _ body: () async throws -> T) async rethrows -> T {
    let previous = umask(mask)
    defer { umask(previous) }
    return try await body()
}
