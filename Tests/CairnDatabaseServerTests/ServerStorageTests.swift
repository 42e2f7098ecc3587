import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Server storage: --data keeps the trees on a SegmentLog", .serialized)
struct ServerStorageTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cairn-rtdb-server-\(UUID().uuidString)").path
    }

    @Test("Sets, merges, deletes and resolved server values survive a restart in order; superseded records are dead")
    func dataSurvivesRestart() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = DatabaseServerConfiguration()
        configuration.dataDirectory = directory
        configuration.clock = { 1_700_000_000_000 }

        let first = DatabaseServer(configuration: configuration)
        _ = try await first.start()
        let client = SessionRecorder(core: first.core, namespace: "kept")
        client.send("p", json(#"{"p":"/users","d":{"ada":{"age":36},"bob":{"age":40}}}"#))
        client.send("m", json(#"{"p":"/users/ada","d":{"age":37,"seen":{".sv":"timestamp"}}}"#))
        client.send("p", json(#"{"p":"/users/bob","d":null}"#))
        client.send("p", json(#"{"p":"/users/ada/name","d":{".value":"Ada",".priority":1}}"#))
        SessionRecorder(core: first.core, namespace: "other").send("p", json(#"{"p":"/x","d":1}"#))
        let expected = first.core.read(namespace: "kept", path: .root)
        #expect(expected.exportJSON() == json(#"{"users":{"ada":{"age":37,"seen":1700000000000,"name":{".value":"Ada",".priority":1}}}}"#))
        await first.stop()

        let second = DatabaseServer(configuration: configuration)
        _ = try await second.start()
        #expect(second.core.read(namespace: "kept", path: .root).isEqual(to: expected))
        #expect(second.core.read(namespace: "other", path: .root).exportJSON() == json(#"{"x":1}"#))
        await second.stop()
    }

    @Test("A root set supersedes everything in its namespace, and only there")
    func rootSetSupersedes() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = DatabaseServerConfiguration()
        configuration.dataDirectory = directory
        let first = DatabaseServer(configuration: configuration)
        _ = try await first.start()
        try first.core.write(.set(DatabasePath(keys: ["a", "b"]), Node(json: .int(1))), namespace: "one")
        try first.core.write(.set(DatabasePath(keys: ["c"]), Node(json: .int(2))), namespace: "two")
        try first.core.write(.set(.root, Node(json: json(#"{"z":3}"#))), namespace: "one")
        await first.stop()

        let second = DatabaseServer(configuration: configuration)
        _ = try await second.start()
        #expect(second.core.read(namespace: "one", path: .root).exportJSON() == json(#"{"z":3}"#))
        #expect(second.core.read(namespace: "two", path: .root).exportJSON() == json(#"{"c":2}"#))
        await second.stop()
    }
}
