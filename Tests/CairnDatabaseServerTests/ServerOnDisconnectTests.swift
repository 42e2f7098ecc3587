import CairnDatabaseCore
@testable import CairnDatabaseServer
import Testing

@Suite("Server core: onDisconnect")
struct ServerOnDisconnectTests {
    @Test("onDisconnect set and update run when the connection closes, and reach other connections' listeners")
    func runOnClose() throws {
        let core = fixedCore(at: 500)
        let watcher = SessionRecorder(core: core)
        watcher.send("q", json(#"{"p":"/presence","h":""}"#))
        _ = watcher.take()
        let client = SessionRecorder(core: core)
        let set = client.send("o", json(#"{"p":"/presence/ada","d":{"online":false,"seen":{".sv":"timestamp"}}}"#))
        let update = client.send("om", json(#"{"p":"/presence","d":{"count":0}}"#))
        let answers = client.take()
        #expect(answers.response(to: set)?["s"] == .string("ok"))
        #expect(answers.response(to: update)?["s"] == .string("ok"))
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["presence"])).isEmpty)
        #expect(watcher.take().isEmpty)

        core.close(client.id)
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["presence"])).exportJSON() == json(#"{"ada":{"online":false,"seen":500},"count":0}"#))
        #expect(watcher.take().pushes.count == 2)
    }

    @Test("Cancelling onDisconnect at a path or above prevents the operations there; the others still run")
    func cancelPreventsIt() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        client.send("o", json(#"{"p":"/status/ada","d":"offline"}"#))
        client.send("om", json(#"{"p":"/status","d":{"bob":"offline","eve":"offline"}}"#))
        client.send("o", json(#"{"p":"/other","d":1}"#))
        let cancel = client.send("oc", json(#"{"p":"/status/ada","d":null}"#))
        client.send("oc", json(#"{"p":"/status/bob","d":null}"#))
        #expect(client.take().response(to: cancel)?["s"] == .string("ok"))
        core.close(client.id)
        #expect(core.read(namespace: "test", path: .root).exportJSON() == json(#"{"status":{"eve":"offline"},"other":1}"#))
    }

    @Test("Dropping a connection asks its transport to close; its onDisconnects run when it is closed")
    func dropHook() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        client.send("o", json(#"{"p":"/gone","d":true}"#))
        core.drop(client.id)
        #expect(client.wasAskedToClose)
        core.close(client.id)
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["gone"])).exportJSON() == .bool(true))
        #expect(core.sessionIDs.isEmpty)
    }
}
