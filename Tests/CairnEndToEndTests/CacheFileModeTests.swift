import CairnCoreTestSupport
import CairnCore
import CairnModel
import CairnTestSupport
import Foundation
import Testing

@testable import Cairn

/// A persistent cache opened through the public API is private to its user: the directories Cairn creates
/// (the configured directory and its missing parents; `$XDG_DATA_HOME` when it is missing, then
/// `cairn/<project>/<database>`) are 0700 and the cache's files 0600, with the usual umask 022. A directory
/// that already exists keeps its mode.
@Suite("Cache file modes")
struct CacheFileModeTests {
    /// A Firestore instance of a fresh `e2e-` project (the real core), reading `environment`.
    private func instance(environment: [String: String], directory: URL?) -> (Firestore, FirebaseApp) {
        let name = "e2e-modes-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: name))
        let app = FirebaseApp.app(name: name)!
        let db = Firestore(app: app, database: DatabaseID.defaultDatabase, environment: environment)
        let settings = db.settings
        settings.dispatchQueue = DispatchQueue(label: name)
        if let directory {
            settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 100 * 1024 * 1024), directory: directory)
        }
        db.settings = settings
        return (db, app)
    }

    /// Writes a few documents and reads them back from the cache, so the log holds records.
    private func write(_ db: Firestore) async throws {
        for i in 0..<20 {
            db.collection("rooms").document("r\(i)").setData(["n": i, "text": String(repeating: "x", count: 500)], completion: nil)
        }
        let read = try await db.collection("rooms").getDocuments(source: .cache)
        #expect(read.documents.count == 20)
    }

    @Test("A persistent cache in a missing directory: the directory, its missing parents 0700, its files 0600")
    func configuredDirectoryIsPrivate() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-modes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("app/cache", isDirectory: true)
        try await withUmask(0o022) {
            let (db, _) = instance(environment: [:], directory: directory)
            try await write(db)
            try await db.terminate()
        }
        let modes = try FileModes(under: root.path)
        #expect(modes.directories.count == 3, "root, app, cache: \(modes.directories)")
        #expect(modes.files.contains { $0.path.hasSuffix("/LOCK") })
        #expect(modes.files.contains { $0.path.hasSuffix(".seg") })
        #expect(modes.notPrivate.isEmpty, "not private: \(modes.notPrivate)")
    }

    @Test("A missing $XDG_DATA_HOME is created 0700, then cairn/@<app>/<project>/<database> 0700, the files 0600")
    func missingXDGDataHomeIsPrivate() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-xdg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let xdg = parent.appendingPathComponent("data")
        let (project, appName) = try await withUmask(0o022) {
            let (db, app) = instance(environment: ["XDG_DATA_HOME": xdg.path], directory: nil)
            try await write(db)
            try await db.terminate()
            return (app.options.projectID!, app.name)
        }
        let modes = try FileModes(under: xdg.path)
        let appDirectory = xdg.path + "/cairn/@\(appName)"
        let cache = appDirectory + "/\(project)/(default)"
        #expect(
            modes.directories.map(\.path).sorted()
                == [xdg.path, xdg.path + "/cairn", appDirectory, appDirectory + "/\(project)", cache])
        #expect(modes.files.contains { $0.path == cache + "/MANIFEST" })
        #expect(modes.notPrivate.isEmpty, "not private: \(modes.notPrivate)")
    }

    @Test("An existing $XDG_DATA_HOME keeps its mode; what Cairn creates inside it is 0700")
    func existingXDGDataHomeKeepsItsMode() async throws {
        let xdg = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-xdg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: xdg, withIntermediateDirectories: true)
        #expect(chmod(xdg.path, 0o751) == 0)
        defer { try? FileManager.default.removeItem(at: xdg) }
        try await withUmask(0o022) {
            let (db, _) = instance(environment: ["XDG_DATA_HOME": xdg.path], directory: nil)
            try await write(db)
            try await db.terminate()
        }
        let modes = try FileModes(under: xdg.path)
        #expect(modes.entries.first?.mode == 0o751)
        #expect(modes.notPrivate.map(\.path) == [xdg.path], "only the existing directory: \(modes.notPrivate)")
    }
}
