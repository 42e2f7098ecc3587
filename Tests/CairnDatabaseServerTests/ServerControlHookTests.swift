import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Server test hooks: reset, shutdown, auth revoked, range merge")
struct ServerControlHookTests {
    @Test("reset and shutdown send the control messages r (a host) and s (a reason)")
    func controlMessages() {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        _ = client.take()
        core.reset(client.id, toHost: "127.0.0.1:9001")
        core.shutdown(client.id, reason: "the database is being moved")
        #expect(client.take() == [
            json(#"{"t":"c","d":{"t":"r","d":"127.0.0.1:9001"}}"#),
            json(#"{"t":"c","d":{"t":"s","d":"the database is being moved"}}"#),
        ])
    }

    @Test("revokeAuth makes the connection anonymous, revokes what it may no longer read, then pushes ac")
    func revokeAuth() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: ServerListenRevocationTests.rules))
        let client = try ServerListenRevocationTests.listening(as: "ada", at: ["/users/ada", "/public"], core: core)
        core.revokeAuth(client.id, reason: "the token expired")
        let pushes = client.take().pushes
        #expect(pushes.map(\.action) == ["c", "ac"])
        #expect(pushes.last?.body == json(#"{"s":"expired_token","d":"the token expired"}"#))
        #expect(core.auth(of: client.id) == .anonymous)
        #expect(core.listenPaths(of: client.id).map(\.description) == ["/public"])
    }

    @Test("A range merge carries the server's children after the start and up to the end, with the listen's tag")
    func rangeMerge() throws {
        let core = fixedCore()
        try core.write(.set(DatabasePath(keys: ["scores"]), Node(json: json(#"{"a":1,"b":2,"c":3,"d":4}"#))), namespace: "test")
        let client = SessionRecorder(core: core)
        client.send("q", json(#"{"p":"/scores","h":"","t":3,"q":{"i":".key","sp":"a"}}"#))
        _ = client.take()
        #expect(core.pushRangeMerge(client.id, at: DatabasePath(keys: ["scores"]), after: "a", through: "c"))
        #expect(core.pushRangeMerge(client.id, at: DatabasePath(keys: ["scores"])))
        #expect(!core.pushRangeMerge(client.id, at: DatabasePath(keys: ["elsewhere"])))
        let pushes = client.take().pushes
        #expect(pushes.map(\.action) == ["rm", "rm"])
        #expect(pushes.first?.body == json(#"{"p":"scores","t":3,"d":[{"s":"a","e":"c","m":{"b":2,"c":3}}]}"#))
        #expect(pushes.last?.body == json(#"{"p":"scores","t":3,"d":[{"m":{"a":1,"b":2,"c":3,"d":4}}]}"#))
    }

    @Test("A write applied without pushes changes the data and reaches no listener")
    func silentWrite() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        client.send("q", json(#"{"p":"/scores","h":""}"#))
        _ = client.take()
        try core.applyWithoutPushes(.set(DatabasePath(keys: ["scores", "a"]), Node(leaf: .int(1))), namespace: "test")
        #expect(client.take().isEmpty)
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["scores"])).exportJSON() == json(#"{"a":1}"#))
    }
}
