import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Server rules: .read/.write by auth != null or a uid")
struct ServerRulesTests {
    static let rules = json(#"""
        {"rules": {
            "public": {".read": true},
            "members": {".read": "auth != null", ".write": "auth != null"},
            "users": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}},
            "admin": {".write": "auth.uid == 'root'"}
        }}
        """#)

    /// An emulator ID token: an unsigned JWT whose payload names the uid.
    static func token(uid: String) -> String {
        let payload = Data(#"{"user_id":"\#(uid)","sub":"\#(uid)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "eyJhbGciOiJub25lIn0.\(payload)."
    }

    static func status(_ client: SessionRecorder, _ action: String, _ body: String) -> JSONValue? {
        let number = client.send(action, json(body))
        return client.take().response(to: number)?["s"]
    }

    @Test("Without auth only the public rule grants; nothing is granted without a rule")
    func anonymous() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: Self.rules))
        let client = SessionRecorder(core: core)
        _ = client.take()
        #expect(Self.status(client, "q", #"{"p":"/public/news","h":""}"#) == .string("ok"))
        #expect(Self.status(client, "p", #"{"p":"/public/news","d":1}"#) == .string("permission_denied"))
        #expect(Self.status(client, "q", #"{"p":"/members","h":""}"#) == .string("permission_denied"))
        #expect(Self.status(client, "p", #"{"p":"/elsewhere","d":1}"#) == .string("permission_denied"))
    }

    @Test("auth != null grants any signed-in user; auth.uid == $uid only the user under their own key; rules cascade")
    func signedIn() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: Self.rules))
        let ada = SessionRecorder(core: core)
        _ = ada.take()
        #expect(Self.status(ada, "auth", #"{"cred":"\#(Self.token(uid: "ada"))"}"#) == .string("ok"))
        #expect(Self.status(ada, "p", #"{"p":"/members/ada","d":1}"#) == .string("ok"))
        #expect(Self.status(ada, "p", #"{"p":"/users/ada/profile/name","d":"Ada"}"#) == .string("ok"))
        #expect(Self.status(ada, "p", #"{"p":"/users/bob/profile","d":"x"}"#) == .string("permission_denied"))
        #expect(Self.status(ada, "m", #"{"p":"/users","d":{"ada/a":1,"bob/b":2}}"#) == .string("permission_denied"))
        #expect(Self.status(ada, "p", #"{"p":"/admin/x","d":1}"#) == .string("permission_denied"))
        #expect(Self.status(ada, "unauth", "{}") == .string("ok"))
        #expect(Self.status(ada, "p", #"{"p":"/members/ada","d":2}"#) == .string("permission_denied"))
        #expect(core.read(namespace: "test", path: .root).exportJSON() == json(#"{"members":{"ada":1},"users":{"ada":{"profile":{"name":"Ada"}}}}"#))
    }

    @Test("The administrator (owner) bypasses the rules")
    func ownerBypasses() throws {
        let core = fixedCore()
        core.setRules(try ServerRules(json: Self.rules))
        let admin = SessionRecorder(core: core)
        _ = admin.take()
        admin.send("auth", json(#"{"cred":"owner"}"#))
        #expect(Self.status(admin, "p", #"{"p":"/admin/x","d":1}"#) == .string("ok"))
    }

    @Test("A rule this server does not understand is an error naming its location")
    func unknownRule() {
        #expect(throws: ServerError.self) {
            try ServerRules(json: json(#"{"rules": {"a": {"b": {".read": "data.exists()"}}}}"#))
        }
        do {
            _ = try ServerRules(json: json(#"{"rules": {"a": {"b": {".read": "data.exists()"}}}}"#))
        } catch {
            #expect(error.message.contains("/a/b"))
        }
    }
}
