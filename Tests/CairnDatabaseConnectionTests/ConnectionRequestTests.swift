@testable import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Persistent connection: requests and answers")
struct ConnectionRequestTests {
    private static let scores = DatabasePath(unvalidated: "scores")

    private static func topThree() throws -> QuerySpec {
        QuerySpec(path: scores, params: try QueryParams().orderedBy(.value).limited(toLast: 3))
    }

    @Test("Answers are matched to their requests by id, whatever their order")
    func answersMatchedById() {
        let harness = ConnectionHarness()
        harness.connect()
        let statuses = Collected<String>()
        harness.connection.put(DatabasePath(unvalidated: "a"), .int(1), hash: nil) { statuses.add("a \($0)") }
        harness.connection.put(DatabasePath(unvalidated: "b"), .int(2), hash: nil) { statuses.add("b \($0)") }
        harness.settle()
        let first = harness.socket.request(WireAction.put)!
        let second = harness.socket.request(WireAction.put, skip: 1)!
        #expect(first.body == .parse(#"{"p":"/a","d":1}"#))
        #expect(second.id == first.id + 1)
        harness.socket.answer(second.id, "permission_denied", .string("no"))
        harness.socket.answer(first.id)
        harness.socket.answer(first.id, "permission_denied")
        harness.settle()
        #expect(statuses.values == [#"b failed(status: "permission_denied", reason: Optional("no"))"#, "a ok"])
    }

    @Test("After a (re)connection: stats once, auth, then listens, puts in order, gets, onDisconnects")
    func restoreOrder() async throws {
        let harness = ConnectionHarness(tokenProvider: { "token-1" })
        let connection = harness.connection
        let listenStatuses = Collected<ListenStatus>()
        let writes = Collected<String>()
        let gets = Collected<GetResponse>()
        connection.listen(QuerySpec(path: Self.scores), tag: nil, hash: "cachedHash") { listenStatuses.add($0) }
        connection.listen(try Self.topThree(), tag: 7, hash: "") { listenStatuses.add($0) }
        connection.put(DatabasePath(unvalidated: "scores/ada"), .int(1), hash: nil) { writes.add("put \($0)") }
        connection.merge(Self.scores, ["bob": .int(2), "eve/x": .null]) { writes.add("merge \($0)") }
        connection.put(DatabasePath(unvalidated: "counter"), .int(5), hash: "h4") { writes.add("transaction \($0)") }
        connection.get(QuerySpec(path: Self.scores)) { gets.add($0) }
        connection.onDisconnectPut(DatabasePath(unvalidated: "presence"), .bool(false)) { writes.add("onDisconnect \($0)") }
        harness.connect(hello: false)
        try #require(await harness.wait { harness.transports.count == 1 })
        harness.socket.hello()
        harness.settle()
        #expect(harness.socket.actions == ["s", "auth"])
        #expect(harness.socket.request("s")?.body == .parse(#"{"c":{"sdk.cairn.swift":1}}"#))
        #expect(harness.socket.request("auth")?.body == .parse(#"{"cred":"token-1"}"#))

        harness.socket.answer(harness.socket.request("auth")!.id)
        harness.settle()
        #expect(harness.socket.actions == ["s", "auth", "q", "q", "p", "m", "p", "g", "o"])
        let requests = harness.socket.requests
        #expect(requests[2].body == .parse(#"{"p":"/scores","h":"cachedHash"}"#))
        #expect(requests[3].body == .parse(#"{"p":"/scores","h":"","q":{"i":".value","l":3,"vf":"r"},"t":7}"#))
        #expect(requests[5].body == .parse(#"{"p":"/scores","d":{"bob":2,"eve/x":null}}"#))
        #expect(requests[6].body == .parse(#"{"p":"/counter","d":5,"h":"h4"}"#))
        #expect(requests[7].body == .parse(#"{"p":"/scores","q":{}}"#))
        #expect(requests[8].body == .parse(#"{"p":"/presence","d":false}"#))
        harness.socket.answer(requests[8].id)
        harness.settle()

        // The drop: the sent transaction fails, everything else unanswered is sent again; stats are not.
        harness.socket.drop()
        harness.settle()
        #expect(writes.values == ["onDisconnect ok", #"transaction failed(status: "disconnect", reason: Optional("Client was disconnected while running a transaction"))"#])
        harness.clock.advance(by: 1)
        try #require(await harness.wait { harness.transports.count == 2 })
        harness.socket.hello(session: "session-2")
        harness.settle()
        harness.socket.answer(harness.socket.request("auth")!.id)
        harness.settle()
        #expect(harness.socket.actions == ["auth", "q", "q", "p", "m", "g"])
        // A listen sent again carries a hash no data has: the cache may have changed since the first one.
        #expect(harness.socket.requests[1].body == .parse(#"{"p":"/scores","h":"2jmj7l5rSw0yVb/vlWAYkK/YBwk="}"#))
        #expect(listenStatuses.values.isEmpty)
        #expect(gets.values.isEmpty)
    }

    @Test("A put's answer waits until the listens sent before it are answered")
    func putAnswersWaitForListens() {
        let harness = ConnectionHarness()
        harness.connect()
        let order = Collected<String>()
        harness.connection.listen(QuerySpec(path: Self.scores), tag: nil, hash: "") { order.add("listen \($0)") }
        harness.connection.put(DatabasePath(unvalidated: "scores/a"), .int(1), hash: nil) { order.add("put \($0)") }
        harness.settle()
        let listen = harness.socket.request(WireAction.listen)!
        let put = harness.socket.request(WireAction.put)!
        harness.socket.answer(put.id)
        harness.settle()
        #expect(order.values.isEmpty)
        harness.socket.answer(listen.id)
        harness.settle()
        #expect(order.values == ["listen ok", "put ok"])
    }

    @Test("A refused listen reports its status and is not sent again after a reconnect; an unlistened one neither")
    func refusedAndStoppedListens() throws {
        let harness = ConnectionHarness()
        harness.connect()
        let statuses = Collected<ListenStatus>()
        harness.connection.listen(QuerySpec(path: Self.scores), tag: nil, hash: "") { statuses.add($0) }
        harness.connection.listen(try Self.topThree(), tag: 2, hash: "") { statuses.add($0) }
        harness.settle()
        harness.socket.answer(harness.socket.request(WireAction.listen)!.id, "permission_denied")
        harness.connection.unlisten(try Self.topThree(), tag: 2)
        harness.settle()
        #expect(statuses.values == [.failed("permission_denied")])
        #expect(harness.socket.request(WireAction.unlisten)?.body == .parse(#"{"p":"/scores","q":{"i":".value","l":3,"vf":"r"},"t":2}"#))
        harness.socket.drop()
        harness.settle()
        harness.clock.advance(by: 1)
        harness.socket.hello()
        harness.settle()
        #expect(harness.socket.actions.isEmpty)
    }

    @Test("get answers with the data or the failure; purgeOutstandingWrites forgets unsent writes and onDisconnects")
    func getsAndPurge() {
        let harness = ConnectionHarness()
        let responses = Collected<GetResponse>()
        let writes = Collected<WriteStatus>()
        harness.connection.put(DatabasePath(unvalidated: "a"), .int(1), hash: nil) { writes.add($0) }
        harness.connection.onDisconnectCancel(DatabasePath(unvalidated: "a")) { writes.add($0) }
        harness.connection.purgeOutstandingWrites()
        harness.connect()
        #expect(harness.socket.actions == ["s"])
        harness.connection.get(QuerySpec(path: Self.scores)) { responses.add($0) }
        harness.connection.get(QuerySpec(path: DatabasePath(unvalidated: "secret"))) { responses.add($0) }
        harness.settle()
        harness.socket.answer(harness.socket.request(WireAction.get)!.id, "ok", .parse(#"{"ada":1}"#))
        harness.socket.answer(harness.socket.request(WireAction.get, skip: 1)!.id, "permission_denied", .string("Permission denied"))
        harness.settle()
        #expect(responses.values == [.data(.parse(#"{"ada":1}"#)), .failed(status: "permission_denied", reason: "Permission denied")])
        #expect(writes.values.isEmpty)
    }
}
