import CairnDatabaseCore
@testable import CairnDatabaseServer
import Testing

@Suite("Server core: writes, server values and compare-and-set")
struct ServerWriteTests {
    @Test("A put with the hash of the current data is applied; with a stale hash it is answered datastale and changes nothing")
    func putComparesHash() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        client.send("p", json(#"{"p":"/counter","d":1}"#))
        let current = core.read(namespace: "test", path: DatabasePath(keys: ["counter"]))
        _ = client.take()

        let good = client.send("p", .object(["p": .string("counter"), "d": .int(2), "h": .string(current.hash)]))
        #expect(client.take().response(to: good)?["s"] == .string("ok"))

        let stale = client.send("p", .object(["p": .string("counter"), "d": .int(3), "h": .string(current.hash)]))
        #expect(client.take().response(to: stale)?["s"] == .string("datastale"))
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["counter"])).exportJSON() == .int(2))
    }

    @Test("A put with the empty hash succeeds only where there is no data")
    func emptyHashMeansNoData() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        let first = client.send("p", json(#"{"p":"/lock","d":"mine","h":""}"#))
        let second = client.send("p", json(#"{"p":"/lock","d":"theirs","h":""}"#))
        let messages = client.take()
        #expect(messages.response(to: first)?["s"] == .string("ok"))
        #expect(messages.response(to: second)?["s"] == .string("datastale"))
    }

    @Test("Server values resolve on the server: timestamp from its clock, increment on the stored number")
    func serverValuesResolve() throws {
        let core = fixedCore(at: 1_700_000_000_123)
        let client = SessionRecorder(core: core)
        client.send("p", json(#"{"p":"/stats","d":{"visits":41,"at":0}}"#))
        client.send("m", json(#"{"p":"/stats","d":{"visits":{".sv":{"increment":1}},"at":{".sv":"timestamp"},"new":{".sv":{"increment":2.5}}}}"#))
        let stored = core.read(namespace: "test", path: DatabasePath(keys: ["stats"]))
        #expect(stored.exportJSON() == json(#"{"visits":42,"at":1700000000123,"new":2.5}"#))
    }

    @Test("The data pushed to listeners has its server values resolved")
    func pushedDataIsResolved() throws {
        let core = fixedCore(at: 99)
        let listener = SessionRecorder(core: core)
        listener.send("q", json(#"{"p":"/","h":""}"#))
        _ = listener.take()
        SessionRecorder(core: core).send("p", json(#"{"p":"/seen","d":{".sv":"timestamp"}}"#))
        #expect(listener.take().pushes.first?.body["d"] == .int(99))
    }

    @Test("Requests apply in the order they arrive: the last of two puts wins and both listeners see the same order")
    func requestOrderIsApplyOrder() throws {
        let core = fixedCore()
        let listener = SessionRecorder(core: core)
        listener.send("q", json(#"{"p":"/x","h":""}"#))
        _ = listener.take()
        let writer = SessionRecorder(core: core)
        writer.send("p", json(#"{"p":"/x","d":"first"}"#))
        writer.send("p", json(#"{"p":"/x","d":"second"}"#))
        #expect(listener.take().pushes.map { $0.body["d"] } == [.string("first"), .string("second")])
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["x"])).exportJSON() == .string("second"))
    }

    @Test("Held acknowledgements wait while the writes apply at once, then arrive in order")
    func heldAcknowledgements() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        _ = client.take()
        core.holdAcknowledgements(true)
        let first = client.send("p", json(#"{"p":"/a","d":1}"#))
        let second = client.send("m", json(#"{"p":"/","d":{"b":2}}"#))
        #expect(client.take().isEmpty)
        #expect(core.read(namespace: "test", path: .root).exportJSON() == json(#"{"a":1,"b":2}"#))
        core.holdAcknowledgements(false)
        let messages = client.take()
        #expect(messages.count == 2)
        #expect(messages.first?.response(to: first)?["s"] == .string("ok"))
        #expect(messages.last?.response(to: second)?["s"] == .string("ok"))
    }

    @Test("A refused path answers permission_denied to writes and listens and revokes the listens there with c")
    func refusedPath() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        client.send("q", json(#"{"p":"/locked/room","h":"","t":4,"q":{"l":1,"vf":"l","sp":null}}"#))
        client.send("q", json(#"{"p":"/open","h":""}"#))
        _ = client.take()
        core.refuse(DatabasePath(keys: ["locked"]), namespace: "test")
        let revoked = client.take().pushes
        #expect(revoked.count == 1)
        #expect(revoked.first?.action == "c")
        #expect(revoked.first?.body["p"] == .string("locked/room"))
        #expect(revoked.first?.body["q"] == json(#"{"l":1,"vf":"l","sp":null}"#))

        let write = client.send("p", json(#"{"p":"/locked/room/x","d":1}"#))
        let listen = client.send("q", json(#"{"p":"/locked","h":""}"#))
        let messages = client.take()
        #expect(messages.response(to: write)?["s"] == .string("permission_denied"))
        #expect(messages.response(to: listen)?["s"] == .string("permission_denied"))
        #expect(core.read(namespace: "test", path: DatabasePath(keys: ["locked"])).isEmpty)
    }
}
