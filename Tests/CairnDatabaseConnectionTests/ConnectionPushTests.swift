@testable import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Persistent connection: server pushes")
struct ConnectionPushTests {
    @Test("Data and merge pushes reach the delegate with their tags; malformed ones and empty merges are dropped")
    func dataAndMerges() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.socket.push("d", .parse(#"{"p":"/scores","d":{"ada":1}}"#))
        harness.socket.push("m", .parse(#"{"p":"scores/","d":{"bob":2,"eve/x":null},"t":3}"#))
        harness.socket.push("m", .parse(#"{"p":"/scores","d":{}}"#))
        harness.socket.push("m", .parse(#"{"p":"/scores","d":5}"#))
        harness.socket.push("d", .parse(#"{"p":"/a.b","d":1}"#))
        harness.socket.push("d", .parse(#"{"p":"/a","d":1,"t":4294967296}"#))
        harness.socket.push("d", .parse(#"{"d":1}"#))
        harness.socket.push("d", .parse(#"[1]"#))
        harness.settle()
        #expect(harness.delegate.entries == [
            "connected",
            #"data /scores {"ada":1}"#,
            #"merge /scores {"bob":2,"eve/x":null} tag 3"#,
        ])
        #expect(!harness.socket.isClosed)
    }

    @Test("A range merge is applied as an overwrite when it has no bounds, else as a merge of its node's children")
    func rangeMerges() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.socket.push("rm", .parse(#"{"p":"/list","d":[{"m":{"a":1}},{"s":"b","e":"d","m":{"c":3,"d":4}}],"t":2}"#))
        harness.settle()
        #expect(harness.delegate.entries == ["connected", #"data /list {"a":1} tag 2"#, #"merge /list {"c":3,"d":4} tag 2"#])
    }

    @Test("c revokes every listen at its path with permission_denied; they are not restored after a reconnect")
    func listenRevoked() throws {
        let harness = ConnectionHarness()
        harness.connect()
        let statuses = Collected<String>()
        let path = DatabasePath(unvalidated: "private")
        harness.connection.listen(QuerySpec(path: path), tag: nil, hash: "") { statuses.add("default \($0)") }
        harness.connection.listen(QuerySpec(path: path, params: try QueryParams().limited(toFirst: 1)), tag: 1, hash: "") { statuses.add("limited \($0)") }
        harness.connection.listen(QuerySpec(path: DatabasePath(unvalidated: "public")), tag: nil, hash: "") { statuses.add("public \($0)") }
        harness.settle()
        harness.socket.push("c", .parse(#"{"p":"/private"}"#))
        harness.settle()
        #expect(statuses.values == [#"default failed("permission_denied")"#, #"limited failed("permission_denied")"#])
        harness.socket.drop()
        harness.settle()
        harness.clock.advance(by: 1)
        harness.socket.hello()
        harness.settle()
        #expect(harness.socket.requests.map { $0.body.objectValue?["p"] } == [.string("/public")])
    }

    @Test("Through the database: a revoked listen cancels the observer with permission_denied")
    func revokedListenCancelsObserver() throws {
        let harness = ConnectionHarness()
        let name = "rtdbc-" + UUID().uuidString.prefix(8).lowercased()
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "https://\(name).firebaseio.com"
        FirebaseApp.configure(name: name, options: options)
        let database = Database.database(app: try #require(FirebaseApp.app(name: name)))
        database.callbackQueue = DispatchQueue(label: "test.callbacks." + name)
        database.useConnection(harness.connection)
        let errors = Collected<String>()
        database.reference(withPath: "private").observe(.value, with: { _ in }, withCancel: { error in
            let error = error as NSError
            errors.add("\(error.code) \(error.localizedFailureReason ?? "")")
        })
        database.waitForCallbacks()
        harness.connect()
        #expect(harness.socket.request(WireAction.listen)?.body == .parse(#"{"p":"/private","h":""}"#))
        harness.socket.push("c", .parse(#"{"p":"/private"}"#))
        harness.settle()
        database.waitForCallbacks()
        #expect(errors.values == ["1 permission_denied"])
    }

    @Test("ac closes the connection; the next one fetches the token again")
    func authRevoked() async throws {
        let fetches = Collected<Int>()
        let harness = ConnectionHarness(tokenProvider: {
            fetches.add(1)
            return "token-\(fetches.values.count)"
        })
        harness.connect(hello: false)
        try #require(await harness.wait { harness.transports.count == 1 })
        harness.socket.hello()
        harness.settle()
        harness.socket.answer(harness.socket.request("auth")!.id)
        harness.socket.push("ac", .parse(#"{"s":"expired_token","d":"Auth token is expired."}"#))
        harness.settle()
        #expect(harness.socket.isClosed)
        #expect(harness.delegate.entries == ["connected", "disconnected"])
        harness.clock.advance(by: 1)
        try #require(await harness.wait { harness.transports.count == 2 })
        harness.socket.hello()
        harness.settle()
        #expect(harness.socket.request("auth")?.body == .parse(#"{"cred":"token-2"}"#))
    }

    @Test("A refused auth closes the connection and reconnects")
    func authRefused() async throws {
        let harness = ConnectionHarness(tokenProvider: { "bad" })
        harness.connect(hello: false)
        try #require(await harness.wait { harness.transports.count == 1 })
        harness.socket.hello()
        harness.settle()
        harness.socket.answer(harness.socket.request("auth")!.id, "invalid_token", .string("Invalid claim"))
        harness.settle()
        #expect(harness.socket.isClosed)
        #expect(harness.clock.pendingDelays == [1])
    }

    @Test("sd prints each line of the rules debug output; e reports the server's error; neither closes the connection")
    func securityDebugAndErrors() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.socket.push("sd", .parse(#"{"msg":"Attempt to read /a with auth=null\n  /:.read: false"}"#))
        harness.socket.control(WireControl.error, .string("Invalid data node"))
        harness.settle()
        let lines = harness.logLines.values
        #expect(lines.contains("Attempt to read /a with auth=null"))
        #expect(lines.contains("  /:.read: false"))
        #expect(lines.contains("Server error: Invalid data node"))
        #expect(!harness.socket.isClosed)
    }
}
