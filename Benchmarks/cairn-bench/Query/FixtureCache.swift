// The query suite's fixture cache (`cairn-bench query --fixture-cache DIR`): each persistent engine's loaded,
// closed cache kept between runs, so that a run at 1M documents does not spend ~7 minutes loading SQLite (and
// minutes more for LevelDB and Cairn) every time. Layout:
//
//   DIR/                               0700
//     sqlite-1000000/                  an entry: one per engine and document count
//       manifest.json                  what it holds (FixtureManifest.swift), written last
//       data/...                       the engine's directory as its load left it
//     .sqlite-1000000.partial-<pid>/   an entry being stored; renamed into place when complete
//
// A run never opens an entry: it copies the entry into its scratch directory (checking every file's size and
// CRC32C on the way) and works on the copy, as it works on a fresh load. An entry whose manifest is missing or
// unreadable (interrupted), does not match the run (engine, document count, corpus fingerprint, engine layout) or
// whose files differ from the manifest (damaged) is removed and the engine is loaded again and stored anew.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loaded engine caches kept in a directory between runs.
final class FixtureCache {
    let root: String

    /// Opens the cache at `root`, creating it (and missing parents) with mode 0700.
    init(root: String) throws {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: self.root, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw BenchError("--fixture-cache \(root) exists and is not a directory") }
        } else {
            try FileManager.default.createDirectory(
                atPath: self.root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    func entryPath(_ identity: FixtureIdentity) -> String { root + "/" + identity.entryName }

    /// Copies the entry of `identity` into the empty directory `destination` and returns true; returns false
    /// (with a progress line saying why) when there is no usable entry, after removing a stale, incomplete or
    /// damaged one. `destination` is empty again when this returns false.
    func restore(_ identity: FixtureIdentity, into destination: String) throws -> Bool {
        let entry = entryPath(identity)
        guard FileManager.default.fileExists(atPath: entry) else {
            Console.progress("fixture cache: no \(identity.engine) entry for \(identity.documents) documents in \(root)")
            return false
        }
        let manifest: FixtureManifest
        do {
            manifest = try FixtureManifest.read(entry + "/" + FixtureManifest.fileName)
        } catch {
            try discard(entry, because: "incomplete or unreadable (\(error))")
            return false
        }
        if let reason = manifest.mismatch(with: identity) {
            try discard(entry, because: "stale: \(reason)")
            return false
        }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try copy(manifest, from: entry + "/data", to: destination)
        } catch let mismatch as FixtureMismatch {
            try empty(destination)
            try discard(entry, because: "damaged: \(mismatch)")
            return false
        } catch {
            try empty(destination)
            throw error
        }
        Console.progress("fixture cache: reused \(identity.engine)'s loaded cache of \(identity.documents) documents "
            + "from \(entry) (copied \(Console.megabytes(manifest.totalBytes)) in \(Console.seconds(clock.now - start)); "
            + "its load took \(Console.seconds(.seconds(manifest.loadSeconds)))): nothing loaded")
        return true
    }

    /// Stores `source`, the engine's loaded and closed cache, as the entry of `identity`: copied into a partial
    /// directory, manifest written, flushed, then renamed over any old entry. Partial directories of processes
    /// that no longer run (interrupted stores) are removed first.
    func store(_ identity: FixtureIdentity, from source: String, loadSeconds: Double) throws {
        try removeAbandonedPartials(of: identity)
        let entry = entryPath(identity)
        let partial = root + "/.\(identity.entryName).partial-\(getpid())"
        if FileManager.default.fileExists(atPath: partial) { try FileManager.default.removeItem(atPath: partial) }
        try FixtureFiles.makePrivateDirectory(partial)
        try FixtureFiles.makePrivateDirectory(partial + "/data")
        let (directories, files) = try FixtureFiles.copyTree(from: source, to: partial + "/data")
        let manifest = FixtureManifest(identity: identity, loadSeconds: loadSeconds, directories: directories, files: files)
        sync()   // the data is on disk before the manifest says it is complete
        try manifest.write(to: partial + "/" + FixtureManifest.fileName)
        if FileManager.default.fileExists(atPath: entry) { try FileManager.default.removeItem(atPath: entry) }
        guard rename(partial, entry) == 0 else {
            throw BenchError("cannot rename \(partial) to \(entry): \(String(cString: strerror(errno)))")
        }
        sync()
        Console.progress("fixture cache: stored \(identity.engine)'s loaded cache in \(entry) "
            + "(\(Console.megabytes(manifest.totalBytes)), \(files.count) files)")
    }

    /// Copies the files `manifest` lists, checking that they are all there is and that each has its size and CRC32C.
    private func copy(_ manifest: FixtureManifest, from data: String, to destination: String) throws {
        let present = try FixtureFiles.tree(data)
        guard Set(present.files) == Set(manifest.files.map(\.path)), Set(present.directories) == Set(manifest.directories) else {
            throw FixtureMismatch(description: "its files are not the ones its manifest lists")
        }
        for directory in manifest.directories { try FixtureFiles.makePrivateDirectory(destination + "/" + directory) }
        for file in manifest.files {
            let copied = try FixtureFiles.copyFile(from: data + "/" + file.path, to: destination + "/" + file.path)
            guard copied.bytes == file.bytes, copied.crc32c == file.crc32c else {
                throw FixtureMismatch(description: "\(file.path) has \(copied.bytes) bytes with CRC32C "
                    + "\(String(copied.crc32c, radix: 16)), its manifest says \(file.bytes) bytes with "
                    + String(file.crc32c, radix: 16))
            }
        }
    }

    private func discard(_ entry: String, because reason: String) throws {
        Console.progress("fixture cache: \(entry) is \(reason): removing it and loading again")
        try FileManager.default.removeItem(atPath: entry)
    }

    /// Removes everything inside `directory`, keeping the directory.
    private func empty(_ directory: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            try FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    /// `.<entry>.partial-<pid>` directories whose process is gone.
    private func removeAbandonedPartials(of identity: FixtureIdentity) throws {
        let prefix = ".\(identity.entryName).partial-"
        for name in try FileManager.default.contentsOfDirectory(atPath: root) where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }   // still running: another run is storing it
            Console.progress("fixture cache: removing \(root)/\(name), left by an interrupted run")
            try FileManager.default.removeItem(atPath: root + "/" + name)
        }
    }
}
