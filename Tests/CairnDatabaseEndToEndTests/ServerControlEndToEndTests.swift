import CairnDatabase
import CairnDatabaseCore
import CairnDatabaseServer
import CairnTestSupport
import Foundation
import Testing

/// The server's unasked messages, sent by its test hooks through a real socket, and what Cairn's client does with
/// each: reset `r`, shutdown `s`, auth revoked `ac` (and the listens it makes unreadable, `c`), range merge `rm`.
@Suite("Realtime Database end to end: the server's control messages and pushes reach the client")
struct ServerControlEndToEndTests {
    /// An emulator ID token (an unsigned JWT) for `uid`.
    static func token(uid: String) -> String {
        let payload = Data(#"{"user_id":"\#(uid)","sub":"\#(uid)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "eyJhbGciOiJub25lIn0.\(payload)."
    }

    /// The one connection the server has, once it has exactly one.
    static func onlySession(of server: DatabaseServer) async throws -> ServerSessionID {
        try #require(await eventually { server.core.sessionIDs.count == 1 })
        return server.core.sessionIDs[0]
    }

    @Test("r: the client reconnects at once to the host named, and dials that host again after a drop")
    func resetMovesTheClient() async throws {
        try await ServerFixture.withServer { fixture in
            var configuration = DatabaseServerConfiguration()
            configuration.idleTimeout = .seconds(600)
            let other = DatabaseServer(configuration: configuration)
            let otherPort = try await other.start()
            do {
                let path = DatabasePath(keys: ["where"])
                try fixture.server.core.write(.set(path, Node(leaf: .string("first"))), namespace: fixture.namespace)
                try other.core.write(.set(path, Node(leaf: .string("second"))), namespace: fixture.namespace)
                let client = fixture.makeClient()
                let seen = ValueLog()
                client.reference(withPath: "where").observe(.value) { seen.add($0.value) }
                try #require(await eventually { seen.last == "first" })
                let session = try await Self.onlySession(of: fixture.server)

                fixture.server.core.reset(session, toHost: "127.0.0.1:\(otherPort)")
                #expect(await eventually { seen.last == "second" })
                let moved = try await Self.onlySession(of: other)
                #expect(fixture.server.core.sessionIDs.isEmpty)

                // Dropped by the second server, the client dials it again (the cached host), not the configured one.
                other.core.drop(moved)
                #expect(await eventually { other.core.sessionIDs.count == 1 && other.core.sessionIDs != [moved] })
                #expect(fixture.server.core.sessionIDs.isEmpty)
                client.goOffline()
            } catch {
                await other.stop()
                throw error
            }
            await other.stop()
        }
    }

    @Test("s: the client disconnects and never reconnects, while a client dropped at the same time does")
    func shutdownStopsReconnecting() async throws {
        try await ServerFixture.withServer { fixture in
            let stopped = fixture.makeClient()
            let stoppedConnected = ValueLog()
            stopped.reference(withPath: ".info/connected").observe(.value) { stoppedConnected.add($0.value) }
            try #require(await eventually { stoppedConnected.last == "1" })
            let stoppedSession = try await Self.onlySession(of: fixture.server)
            let witness = fixture.makeClient()
            let witnessConnected = ValueLog()
            witness.reference(withPath: ".info/connected").observe(.value) { witnessConnected.add($0.value) }
            try #require(await eventually { witnessConnected.last == "1" && fixture.server.core.sessionIDs.count == 2 })
            let witnessSession = try #require(fixture.server.core.sessionIDs.first { $0 != stoppedSession })

            fixture.server.core.shutdown(stoppedSession, reason: "the database was disabled")
            fixture.server.core.drop(witnessSession)
            #expect(await eventually { stoppedConnected.last == "0" })
            // The witness comes back with the same backoff the stopped client would follow.
            #expect(await eventually { witnessConnected.values == ["0", "1", "0", "1"] })
            stopped.goOnline()
            try await Task.sleep(for: .seconds(2))
            #expect(fixture.server.core.sessionIDs.count == 1)
            #expect(stoppedConnected.values == ["0", "1", "0"])
        }
    }

    @Test("ac: the client drops its token, fetches a fresh one, authenticates again and sends its listens again")
    func authRevokedReauthenticates() async throws {
        try await ServerFixture.withServer { fixture in
            let fetches = ValueLog()
            let client = fixture.makeClient()
            client.authTokenProvider = {
                fetches.add("fetch")
                return Self.token(uid: "user-\(fetches.values.count)")
            }
            let seen = ValueLog()
            client.reference(withPath: "news").observe(.value) { seen.add($0.value) }
            try #require(await eventually { seen.values == ["null"] })
            let first = try await Self.onlySession(of: fixture.server)
            #expect(fixture.server.core.auth(of: first)?.uid == "user-1")

            fixture.server.core.revokeAuth(first, reason: "Auth token is expired.")
            #expect(await eventually { fixture.server.core.sessionIDs.count == 1 && fixture.server.core.sessionIDs != [first] })
            let second = fixture.server.core.sessionIDs[0]
            #expect(await eventually { fixture.server.core.auth(of: second)?.uid == "user-2" })
            #expect(await eventually { fixture.server.core.listenPaths(of: second) == [DatabasePath(keys: ["news"])] })
            try fixture.server.core.write(.set(DatabasePath(keys: ["news"]), Node(leaf: .string("fresh"))), namespace: fixture.namespace)
            #expect(await eventually { seen.last == "fresh" })
            #expect(fetches.values.count >= 2)
        }
    }

    @Test("ac under rules: the listen only the revoked user could read is cancelled with permission_denied; the public one stays")
    func authRevokedRevokesPrivateListen() async throws {
        try await ServerFixture.withServer { fixture in
            fixture.server.core.setRules(try ServerRules(json: .object(["rules": .object([
                "users": .object(["$uid": .object([".read": .string("auth.uid == $uid")])]),
                "public": .object([".read": .bool(true)]),
            ])])))
            let client = fixture.makeClient(token: Self.token(uid: "ada"))
            let cancelled = ValueLog()
            let privateValues = ValueLog()
            client.reference(withPath: "users/ada").observe(.value, with: { privateValues.add($0.value) }, withCancel: { error in
                cancelled.add("\((error as NSError).code) \((error as NSError).localizedFailureReason ?? "")")
            })
            let publicValues = ValueLog()
            client.reference(withPath: "public").observe(.value) { publicValues.add($0.value) }
            try #require(await eventually { privateValues.values == ["null"] && publicValues.values == ["null"] })
            let session = try await Self.onlySession(of: fixture.server)

            // The provider still gives ada's token, so only the listen revoked while anonymous is gone for good.
            fixture.server.core.revokeAuth(session, reason: "Auth token is expired.")
            #expect(await eventually { cancelled.values == ["1 permission_denied"] })
            #expect(await eventually { fixture.server.core.sessionIDs.count == 1 && fixture.server.core.sessionIDs != [session] })
            let second = fixture.server.core.sessionIDs[0]
            #expect(await eventually { fixture.server.core.listenPaths(of: second) == [DatabasePath(keys: ["public"])] })
            try fixture.server.core.write(.set(DatabasePath(keys: ["public"]), Node(leaf: .string("hello"))), namespace: fixture.namespace)
            #expect(await eventually { publicValues.last == "hello" })
        }
    }

    @Test("rm: a range merge pushed through the server changes the listen's data in that range only; events follow")
    func rangeMergeReachesListeners() async throws {
        try await ServerFixture.withServer { fixture in
            let scores = DatabasePath(keys: ["scores"])
            try fixture.server.core.write(.set(scores, try Node(json: .object(["a": .int(1), "b": .int(2), "c": .int(3)]))), namespace: fixture.namespace)
            let client = fixture.makeClient()
            let events = ValueLog()
            let reference = client.reference(withPath: "scores")
            reference.observe(.childAdded) { events.add("added \($0.key) \($0.value ?? "nil")") }
            reference.observe(.childChanged) { events.add("changed \($0.key) \($0.value ?? "nil")") }
            try #require(await eventually { events.values.count == 3 })
            let session = try await Self.onlySession(of: fixture.server)

            // The server's data changes behind the listener's back: b inside the range (a, c], d after it.
            try fixture.server.core.applyWithoutPushes(.merge(scores, [
                (DatabasePath(keys: ["b"]), Node(leaf: .int(20))), (DatabasePath(keys: ["d"]), Node(leaf: .int(4))),
            ]), namespace: fixture.namespace)
            #expect(fixture.server.core.pushRangeMerge(session, at: scores, after: "a", through: "c"))
            #expect(await eventually { events.values.count == 4 })
            #expect(events.values.last == "changed b 20")

            // A range without bounds is all the data at the path.
            #expect(fixture.server.core.pushRangeMerge(session, at: scores))
            #expect(await eventually { events.values.count == 5 })
            #expect(events.values == ["added a 1", "added b 2", "added c 3", "changed b 20", "added d 4"])
        }
    }
}
