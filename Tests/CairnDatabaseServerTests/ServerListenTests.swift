import CairnDatabaseCore
@testable import CairnDatabaseServer
import Testing

@Suite("Server core: listens")
struct ServerListenTests {
    @Test("The hello names the server's host, protocol 5, a session id and the server time")
    func helloComesFirst() throws {
        let client = SessionRecorder(core: fixedCore(at: 1_234))
        let hello = try #require(client.take().first)
        #expect(hello["t"] == .string("c"))
        let body = try #require(hello["d"])
        #expect(body["t"] == .string("h"))
        #expect(body["d"]?["ts"] == .int(1_234))
        #expect(body["d"]?["v"] == .string("5"))
        #expect(body["d"]?["h"] == .string("127.0.0.1:9000"))
        #expect(body["d"]?["s"] != nil)
    }

    @Test("A listen gets the data at its path first, then ok")
    func listenGetsDataThenOk() throws {
        let core = fixedCore()
        try core.write(.set(DatabasePath(keys: ["users"]), Node(json: json(#"{"ada":{"age":36}}"#))), namespace: "test")
        let client = SessionRecorder(core: core)
        _ = client.take()
        let request = client.send("q", json(#"{"p":"/users","h":""}"#))
        let messages = client.take()
        #expect(messages.count == 2)
        let push = try #require(messages.first?.push)
        #expect(push.action == "d")
        #expect(push.body["p"] == .string("users"))
        #expect(push.body["d"] == json(#"{"ada":{"age":36}}"#))
        #expect(messages.last?.response(to: request)?["s"] == .string("ok"))
    }

    @Test("A listen whose hash matches the server's data gets only ok")
    func matchingHashSkipsData() throws {
        let core = fixedCore()
        let node = try Node(json: json(#"{"a":1}"#))
        try core.write(.set(DatabasePath(keys: ["x"]), node), namespace: "test")
        let client = SessionRecorder(core: core)
        _ = client.take()
        let request = client.send("q", .object(["p": .string("x"), "h": .string(node.hash)]))
        let messages = client.take()
        #expect(messages.count == 1)
        #expect(messages.first?.response(to: request)?["s"] == .string("ok"))
    }

    @Test("A write is pushed to every connection listening at, above or below it, and to no other")
    func changesReachMatchingListenersOnly() throws {
        let core = fixedCore()
        let above = SessionRecorder(core: core)
        let below = SessionRecorder(core: core)
        let elsewhere = SessionRecorder(core: core)
        let otherNamespace = SessionRecorder(core: core, namespace: "other")
        above.send("q", json(#"{"p":"/rooms","h":""}"#))
        below.send("q", json(#"{"p":"/rooms/r1/title","h":""}"#))
        elsewhere.send("q", json(#"{"p":"/users","h":""}"#))
        otherNamespace.send("q", json(#"{"p":"/rooms","h":""}"#))
        for client in [above, below, elsewhere, otherNamespace] { _ = client.take() }

        let writer = SessionRecorder(core: core)
        let write = writer.send("p", json(#"{"p":"/rooms/r1","d":{"title":"Lobby","size":3}}"#))
        #expect(writer.take().response(to: write)?["s"] == .string("ok"))

        let toAbove = above.take().pushes
        #expect(toAbove.count == 1)
        #expect(toAbove.first?.body["p"] == .string("rooms/r1"))
        #expect(toAbove.first?.body["d"] == json(#"{"title":"Lobby","size":3}"#))
        let toBelow = below.take().pushes
        #expect(toBelow.count == 1)
        #expect(toBelow.first?.body["p"] == .string("rooms/r1/title"))
        #expect(toBelow.first?.body["d"] == .string("Lobby"))
        #expect(elsewhere.take().isEmpty)
        #expect(otherNamespace.take().isEmpty)
    }

    @Test("A merge reaches a listener above it as an m push of the changed children")
    func mergeIsPushedAsMerge() throws {
        let core = fixedCore()
        let listener = SessionRecorder(core: core)
        listener.send("q", json(#"{"p":"/","h":""}"#))
        _ = listener.take()
        let writer = SessionRecorder(core: core)
        writer.send("m", json(#"{"p":"/users/ada","d":{"age":37,"stats/games":2}}"#))
        let pushes = listener.take().pushes
        #expect(pushes.count == 1)
        #expect(pushes.first?.action == "m")
        #expect(pushes.first?.body["p"] == .string("users/ada"))
        #expect(pushes.first?.body["d"] == json(#"{"age":37,"stats/games":2}"#))
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["users", "ada"])).exportJSON() == json(#"{"age":37,"stats":{"games":2}}"#))
    }

    @Test("An unlistened path gets no more pushes")
    func unlistenStopsPushes() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        client.send("q", json(#"{"p":"/a","h":""}"#))
        let unlisten = client.send("n", json(#"{"p":"/a"}"#))
        #expect(client.take().response(to: unlisten)?["s"] == .string("ok"))
        try core.write(.set(DatabasePath(keys: ["a"]), Node(json: .int(1))), namespace: "test")
        #expect(client.take().isEmpty)
    }
}
