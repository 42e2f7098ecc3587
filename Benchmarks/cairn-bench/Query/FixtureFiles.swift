// The file copies of the fixture cache (FixtureCache.swift): an engine's loaded cache is copied into the cache
// and back out file by file, with the CRC32C of every file's bytes computed on the way. The manifest records the
// sizes and checksums when an entry is stored; a restore compares them while it copies (it reads every byte
// anyway), so an entry damaged on disk is noticed before any run uses it. Directories are created 0700 and files
// 0600; anything but regular files and directories (a symbolic link, a socket) is refused.

import CCRC32C
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file of a cached engine directory: its path relative to that directory, its size and its CRC32C.
struct FixtureFile: Codable, Equatable {
    let path: String
    let bytes: Int
    let crc32c: UInt32
}

/// A restored file that differs from its manifest: the entry is damaged (not an I/O error of the copy).
struct FixtureMismatch: Error, CustomStringConvertible {
    let description: String
}

enum FixtureFiles {
    /// Bytes read and written per system call.
    static let chunk = 4 << 20

    /// The subdirectories (parents first) and regular files (sorted) under `directory`, as relative paths.
    static func tree(_ directory: String) throws -> (directories: [String], files: [String]) {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
            throw BenchError("cannot list \(directory)")
        }
        var directories: [String] = []
        var files: [String] = []
        for case let name as String in enumerator {
            let type = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.type] as? FileAttributeType
            switch type {
            case .typeDirectory?: directories.append(name)
            case .typeRegular?: files.append(name)
            default: throw BenchError("\(directory)/\(name) is neither a regular file nor a directory: it cannot be cached")
            }
        }
        return (directories.sorted { $0.count < $1.count || ($0.count == $1.count && $0 < $1) }, files.sorted())
    }

    /// Copies the tree under `source` into the existing, empty `destination` and returns every file's size and
    /// CRC32C. Creates the subdirectories 0700 and the files 0600.
    static func copyTree(from source: String, to destination: String) throws -> (directories: [String], files: [FixtureFile]) {
        let (directories, files) = try tree(source)
        for directory in directories { try makePrivateDirectory(destination + "/" + directory) }
        let copied = try files.map { path in
            let (bytes, crc32c) = try copyFile(from: source + "/" + path, to: destination + "/" + path)
            return FixtureFile(path: path, bytes: bytes, crc32c: crc32c)
        }
        return (directories, copied)
    }

    /// Creates `path` with mode 0700 (its parent must exist).
    static func makePrivateDirectory(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 else { throw posixError("cannot create the directory", path) }
    }

    /// Copies one file to the new file `destination` (mode 0600) and returns its size and CRC32C.
    static func copyFile(from source: String, to destination: String) throws -> (bytes: Int, crc32c: UInt32) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw posixError("cannot open", source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw posixError("cannot create", destination) }
        defer { close(output) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var crc: UInt32 = 0
        var total = 0
        while true {
            let count = read(input, buffer.baseAddress, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                throw posixError("cannot read", source)
            }
            if count == 0 { break }
            crc = cairn_crc32c_extend(crc, buffer.baseAddress, count)
            var written = 0
            while written < count {
                let result = write(output, buffer.baseAddress! + written, count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw posixError("cannot write", destination)
                }
                written += result
            }
            total += count
        }
        return (total, crc)
    }

    private static func posixError(_ what: String, _ path: String) -> BenchError {
        BenchError("\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
