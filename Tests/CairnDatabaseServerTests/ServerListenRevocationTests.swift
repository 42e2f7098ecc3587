import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Server rules: a running listen the connection may no longer read is revoked")
struct ServerListenRevocationTests {
    static let rules = json(#"""
        {"rules": {
            "members": {".read": "auth != null"},
            "users": {"$uid": {".read": "auth.uid == $uid"}},
            "public": {".read": true}
        }}
        """#)

    /// A connection signed in as `uid`, listening at each of `paths` (each answered `ok`).
    static func listening(as uid: String, at paths: [String], core: DatabaseServerCore) throws -> SessionRecorder {
        let client = SessionRecorder(core: core)
        let auth = client.send("auth", .object(["cred": .string(ServerRulesTests.token(uid: uid))]))
        var numbers = [auth]
        for path in paths { numbers.append(client.send("q", .object(["p": .string(path), "h": .string("")]))) }
        let answers = client.take()
        for number in numbers { try #require(answers.response(to: number)?["s"] == .string("ok"), "request \(number)") }
        return client
    }

    static func revokedPaths(_ messages: [JSONValue]) -> [String] {
        messages.pushes.filter { $0.action == "c" }.compactMap { push in
            if case .string(let path)? = push.body["p"] { return path }
            return nil
        }
    }

    @Test("auth with another uid revokes the listens only the old uid could read, with a c push before the ok")
    func authWithAnotherUID() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: Self.rules))
        let client = try Self.listening(as: "ada", at: ["/users/ada", "/members", "/public"], core: core)
        let auth = client.send("auth", .object(["cred": .string(ServerRulesTests.token(uid: "bob"))]))
        let messages = client.take()
        #expect(Self.revokedPaths(messages) == ["users/ada"])
        let revokedAt = messages.firstIndex { $0.push?.action == "c" }
        let okAt = messages.firstIndex { $0.response(to: auth) != nil }
        #expect(revokedAt != nil && okAt != nil && revokedAt! < okAt!)
        #expect(core.listenPaths(of: client.id).map(\.description) == ["/members", "/public"])
    }

    @Test("unauth revokes every listen that needs a signed-in user; public ones stay and still get changes")
    func unauthRevokes() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: Self.rules))
        let client = try Self.listening(as: "ada", at: ["/users/ada", "/members", "/public"], core: core)
        client.send("unauth", .object([:]))
        #expect(Self.revokedPaths(client.take()) == ["members", "users/ada"])
        try core.write(.set(DatabasePath(keys: ["public", "news"]), Node(leaf: .string("hi"))), namespace: "test")
        try core.write(.set(DatabasePath(keys: ["members", "x"]), Node(leaf: .int(1))), namespace: "test")
        let pushes = client.take().pushes
        #expect(pushes.count == 1)
        #expect(pushes.first?.body["p"] == .string("public/news"))
    }

    @Test("New rules revoke the running listens they deny, on every connection")
    func newRulesRevoke() throws {
        let core = fixedCore()
        let ada = try Self.listening(as: "ada", at: ["/members", "/public"], core: core)
        let bob = try Self.listening(as: "bob", at: ["/users/ada"], core: core)
        core.setRules(try ServerRules(json: Self.rules))
        #expect(Self.revokedPaths(ada.take()).isEmpty)
        #expect(Self.revokedPaths(bob.take()) == ["users/ada"])
    }

    @Test("A revoked filtered query's c push echoes its query object")
    func revokedQueryEchoesQuery() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: Self.rules))
        let client = SessionRecorder(core: core)
        client.send("auth", .object(["cred": .string(ServerRulesTests.token(uid: "ada"))]))
        client.send("q", json(#"{"p":"/members","h":"","t":7,"q":{"l":2,"vf":"l"}}"#))
        _ = client.take()
        client.send("unauth", .object([:]))
        let revoked = client.take().pushes.filter { $0.action == "c" }
        #expect(revoked.count == 1)
        #expect(revoked.first?.body["q"] == json(#"{"l":2,"vf":"l"}"#))
    }
}
