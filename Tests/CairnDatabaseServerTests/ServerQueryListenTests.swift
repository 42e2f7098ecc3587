import CairnDatabaseCore
@testable import CairnDatabaseServer
import Testing

@Suite("Server core: tagged query listens")
struct ServerQueryListenTests {
    /// scores: a 1, b 5, c 3, d 9 (ordered by value: a c b d).
    static func coreWithScores() throws -> DatabaseServerCore {
        let core = fixedCore()
        try core.write(.set(DatabasePath(keys: ["scores"]), Node(json: json(#"{"a":1,"b":5,"c":3,"d":9}"#))), namespace: "test")
        return core
    }

    @Test("A limitToLast(2) query by value gets its tagged window, then ok")
    func taggedWindowOnListen() throws {
        let client = SessionRecorder(core: try Self.coreWithScores())
        _ = client.take()
        let request = client.send("q", json(#"{"p":"/scores","h":"","t":7,"q":{"i":".value","l":2,"vf":"r"}}"#))
        let messages = client.take()
        let push = try #require(messages.first?.push)
        #expect(push.body["t"] == .int(7))
        #expect(push.body["d"] == json(#"{"b":5,"d":9}"#))
        #expect(messages.last?.response(to: request)?["s"] == .string("ok"))
    }

    @Test("The window is re-sent whole, tagged, when a change enters it or removes a member; not when it does not change")
    func windowKeptOnChanges() throws {
        let core = try Self.coreWithScores()
        let client = SessionRecorder(core: core)
        client.send("q", json(#"{"p":"/scores","h":"","t":3,"q":{"i":".value","l":2,"vf":"r"}}"#))
        _ = client.take()
        let writer = SessionRecorder(core: core)

        writer.send("p", json(#"{"p":"/scores/e","d":7}"#))
        var pushes = client.take().pushes
        #expect(pushes.count == 1)
        #expect(pushes.first?.body["d"] == json(#"{"d":9,"e":7}"#))
        #expect(pushes.first?.body["t"] == .int(3))

        writer.send("p", json(#"{"p":"/scores/a","d":2}"#))
        #expect(client.take().isEmpty)

        writer.send("p", json(#"{"p":"/scores/d","d":null}"#))
        pushes = client.take().pushes
        #expect(pushes.first?.body["d"] == json(#"{"b":5,"e":7}"#))
    }

    @Test("Both query forms select the same range: JS sin false and iOS startAt with [MAX_NAME]")
    func startAfterInBothForms() throws {
        let core = try Self.coreWithScores()
        let client = SessionRecorder(core: core)
        _ = client.take()
        client.send("q", json(#"{"p":"/scores","h":"","t":1,"q":{"i":".value","sp":3,"sn":"[MAX_NAME]","sin":false}}"#))
        client.send("q", json(#"{"p":"/scores","h":"","t":2,"q":{"i":".value","sp":3,"sn":"[MAX_NAME]"}}"#))
        let pushes = client.take().pushes
        #expect(pushes.count == 2)
        #expect(pushes.allSatisfy { $0.body["d"] == json(#"{"b":5,"d":9}"#) })
    }

    @Test("A get answers the query's data in its response")
    func getAnswersData() throws {
        let client = SessionRecorder(core: try Self.coreWithScores())
        _ = client.take()
        let request = client.send("g", json(#"{"p":"/scores","q":{"i":".key","ep":"b"}}"#))
        let answer = try #require(client.take().response(to: request))
        #expect(answer["s"] == .string("ok"))
        #expect(answer["d"] == json(#"{"a":1,"b":5}"#))
    }
}
