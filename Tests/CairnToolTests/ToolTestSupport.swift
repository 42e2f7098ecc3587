import CairnModel
import CairnTestSupport
import Foundation
import CairnLocalStore
import SegmentLog
import Testing

// What the cairn tool tests share: a small cache with fixed contents built through LocalStore, the built
// `cairn` binary run as a subprocess, a byte-exact snapshot of a directory, and golden files.

/// A new empty directory under the system's temporary directory, removed by `cleanUp`.
struct TemporaryDirectory {
    let path: String

    init(_ name: String = #function) throws {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-tool-tests-\(getpid())-\(safe)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// Builds the test cache: fixed documents, versions and write times, small segments so that it spans several.
///
/// Contents: `users/u0...u11` with every value type, `rooms/r0...r2`; users u0...u3 rewritten (their first
/// versions become dead bytes); `users/u11` a tombstone; target 2 on `rooms` holding the rooms; target 4 on
/// `users` removed; `rooms/r2` evicted; batch 1 acknowledged; batch 2 (user "", a set) and batch 3 (user "ada",
/// a patch with an increment) pending; a write-stream token for "ada"; three index configurations, the last
/// (``indexConfiguration``) with automatic index creation on.
enum SampleCache {
    static func time(_ minutes: Int64) -> Timestamp { Timestamp(seconds: 1_704_067_200 + minutes * 60, nanoseconds: 0) }

    static func key(_ path: String) -> DocumentKey { try! DocumentKey(parsing: path) }

    static var configuration: SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.segmentTargetSize = 4096
        configuration.frameTargetSize = 512
        configuration.durability = .none
        configuration.preallocationSize = 0
        return configuration
    }

    /// The sample's final index configuration: users by age then tags (contains), rooms by title descending.
    static let indexConfiguration = """
        {"indexes": [
          {"collectionGroup": "users", "queryScope": "COLLECTION",
           "fields": [{"fieldPath": "age", "order": "ASCENDING"}, {"fieldPath": "tags", "arrayConfig": "CONTAINS"}]},
          {"collectionGroup": "rooms", "queryScope": "COLLECTION", "fields": [{"fieldPath": "title", "order": "DESCENDING"}]}
        ]}
        """

    static func build(at directory: String) throws {
        let store = try LocalStore.open(at: directory, configuration: configuration)
        var random = SeededRandom(seed: 7)
        func found(_ path: String, _ fields: [String: Value], _ minute: Int64) -> Document {
            Document(key: key(path), state: .found, version: time(minute), readTime: time(minute), data: ObjectValue(fields))
        }
        for i in 0..<12 {
            try store.applyRemoteDocuments([found("users/u\(i)", [
                "name": .string("user \(i)"), "age": .integer(Int64(20 + random.below(40))), "score": .double(Double(i) / 4),
                "ratio": .double(i == 3 ? .infinity : 2), "seen": .timestamp(time(Int64(random.below(10_000)))),
                "blob": .bytes([UInt8(i), 0xFF, 0x00]), "home": .geoPoint(GeoPoint(latitude: 48.5, longitude: -2)),
                "friend": .reference(DatabaseID(projectID: "test"), key("users/u\((i + 1) % 12)")),
                "tags": .array([.string("t\(i)"), .null, .boolean(i % 2 == 0)]),
                "nested": .map(ObjectValue(["n": .integer(Int64(i)), "pad": .string(String(repeating: "p", count: 40))])),
            ], Int64(i))])
        }
        for i in 0..<3 { try store.applyRemoteDocuments([found("rooms/r\(i)", ["title": .string("Room \(i)")], 20)]) }
        for i in 0..<4 { try store.applyRemoteDocuments([found("users/u\(i)", ["name": .string("user \(i) again")], Int64(30 + i))]) }
        try store.applyRemoteDocuments([Document(key: key("users/u11"), state: .noDocument, version: time(40), readTime: time(40))])
        for (path, token) in [("rooms", "r"), ("users", "u")] {
            let query = Query(path: try ResourcePath(parsing: path))
            var data = try store.allocateTarget(query)
            data.resumeToken = Array(token.utf8)
            data.snapshotVersion = time(50)
            try store.updateTarget(data, added: Set(try store.executeQuery(query).map(\.key)), removed: [])
            try store.releaseTarget(data.targetID, keepPersisted: false)
        }
        try store.removeTarget(4)
        try store.setLastRemoteSnapshotVersion(time(50))
        try store.evictDocuments([key("rooms/r2")])
        try store.writeLocally([.set(key("users/u0"), value: ObjectValue(["name": .string("acked")]))], localWriteTime: time(60))
        let batch = try store.nextMutationBatch(after: nil)!
        try store.acknowledgeBatch(try MutationBatchResult(batch: batch, commitVersion: time(61), mutationResults: [MutationResult(version: time(61))]))
        try store.writeLocally([.set(key("rooms/r9"), value: ObjectValue(["title": .string("pending")]))], localWriteTime: time(70))
        try store.switchUser(to: "ada")
        try store.writeLocally([
            .patch(key("users/u5"), value: ObjectValue(["name": .string("Ada")]), mask: FieldMask([FieldPath(segments: ["name"])]),
                   transforms: [FieldTransform(field: FieldPath(segments: ["age"]), operation: .increment(.integer(1)))]),
        ], localWriteTime: time(71))
        try store.setWriteStreamToken(Array("ada-token".utf8), forUser: "ada")
        // Three index configurations: the first two are retired by the next; the last is two indexes with
        // automatic creation on, partly backfilled (in memory only: the entries are not stored).
        try store.setIndexConfiguration(
            json: #"{"indexes": [{"collectionGroup": "users", "fields": [{"fieldPath": "name", "order": "ASCENDING"}]}]}"#)
        try store.setIndexAutoCreationEnabled(true)
        try store.setIndexConfiguration(json: indexConfiguration)
        try store.backfillIndexes(maxDocuments: 5)
        try store.close()
    }
}

/// The `cairn` executable next to the test bundle (the build's products directory), or `$CAIRN_BINARY`.
enum Cairn {
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["CAIRN_BINARY"] { return path }
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return bundle.appendingPathComponent("cairn").path
    }()

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `cairn arguments` (or another of the build's executables) and waits for it. Output goes through
    /// files, so a large dump cannot block it.
    static func run(_ arguments: [String], executable: String = binary) throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build the products first: \(executable) is missing")
        let scratch = try TemporaryDirectory("run")
        defer { scratch.cleanUp() }
        let out = scratch.path + "/stdout", err = scratch.path + "/stderr"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: try String(contentsOfFile: out, encoding: .utf8),
            stderr: try String(contentsOfFile: err, encoding: .utf8))
    }
}

/// Every file of a directory (recursively) with its exact bytes.
func snapshot(of directory: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let name = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
        if !isDirectory.boolValue { files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)) }
    }
    return files
}

/// Compares `actual` with `Golden/<name>`. To regenerate the golden files after an intended change of the
/// output, run the tests with `CAIRN_UPDATE_GOLDEN=1` and review the diff:
///
///     CAIRN_UPDATE_GOLDEN=1 swift test --scratch-path .build-tool --skip-build --filter CairnToolTests
func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)").path
    if ProcessInfo.processInfo.environment["CAIRN_UPDATE_GOLDEN"] == "1" {
        try actual.write(toFile: path, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOfFile: path, encoding: .utf8)
    #expect(actual == expected, "output differs from Golden/\(name) (CAIRN_UPDATE_GOLDEN=1 regenerates it)",
            sourceLocation: sourceLocation)
}
