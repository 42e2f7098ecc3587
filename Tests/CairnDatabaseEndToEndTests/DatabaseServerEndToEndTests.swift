import CairnDatabase
import CairnDatabaseCore
import CairnTestSupport
import Foundation
import Testing

/// Each test runs in ``ExclusiveTestSection/realtimeDatabaseConnections``: the class-level goOffline test of
/// CairnDatabaseTests would otherwise drop these connections (a sent transaction then fails with `disconnect`).
@Suite("Realtime Database end to end: two clients through the local server")
struct DatabaseServerEndToEndTests {
    @Test("A write in one client reaches a listener in the other")
    func writeReachesOtherClient() async throws {
        try await ServerFixture.withServer { fixture in
            let reader = fixture.makeClient()
            let writer = fixture.makeClient()
            let seen = ValueLog()
            reader.reference(withPath: "rooms/r1/title").observe(.value) { seen.add($0.value) }
            try #require(await eventually { seen.values == ["null"] })
            _ = try await writer.reference(withPath: "rooms/r1").setValue(["title": "Lobby", "seats": 4])
            #expect(await eventually { seen.last == "Lobby" })
            #expect(fixture.serverValue("rooms/r1") == .object(["title": .string("Lobby"), "seats": .int(4)]))
        }
    }

    @Test(".info/connected: true, false when the server stops, true when it is back on the same port; queued writes drain once")
    func connectedAcrossServerRestart() async throws {
        try await ServerFixture.withServer { fixture in
            let client = fixture.makeClient()
            let connected = ValueLog()
            client.reference(withPath: ".info/connected").observe(.value) { connected.add($0.value) }
            try #require(await eventually { connected.last == "1" })

            await fixture.stop()
            #expect(await eventually { connected.last == "0" })
            let queue = client.reference(withPath: "queue")
            let acknowledged = ValueLog()
            for index in 0..<3 {
                queue.childByAutoId().setValue(index) { error, _ in acknowledged.add(error == nil ? "ok" : "\(error!)") }
            }
            client.reference(withPath: "counter").setValue(ServerValue.increment(1)) { error, _ in acknowledged.add(error == nil ? "ok" : "\(error!)") }

            try await fixture.restart()
            #expect(await eventually { connected.last == "1" })
            #expect(await eventually { acknowledged.values.count == 4 })
            #expect(acknowledged.values == ["ok", "ok", "ok", "ok"])
            let drained = fixture.serverValue("queue").objectValue ?? [:]
            #expect(drained.values.sorted { "\($0)" < "\($1)" } == [.int(0), .int(1), .int(2)])
            #expect(fixture.serverValue("counter") == .int(1))
            #expect(connected.values == ["0", "1", "0", "1"])
        }
    }

    @Test("onDisconnectSetValue is applied by the server when a client's connection drops")
    func onDisconnectAppliedOnDrop() async throws {
        try await ServerFixture.withServer { fixture in
            let leaving = fixture.makeClient()
            let watching = fixture.makeClient()
            let status = ValueLog()
            watching.reference(withPath: "presence/ada").observe(.value) { status.add($0.value) }
            let registered = ValueLog()
            let presence = leaving.reference(withPath: "presence/ada")
            presence.onDisconnectSetValue("offline") { error, _ in registered.add(error == nil ? "ok" : "\(error!)") }
            _ = try await presence.setValue("online")
            try #require(await eventually { registered.values == ["ok"] && status.last == "online" })

            leaving.goOffline()
            #expect(await eventually { status.last == "offline" })
            #expect(fixture.serverValue("presence/ada") == .string("offline"))
        }
    }

    @Test("Transactions from two clients increment one counter exactly once each")
    func transactionsFromBothClients() async throws {
        try await ServerFixture.withServer { fixture in
            let clients = [fixture.makeClient(), fixture.makeClient()]
            let perClient = 10
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in clients {
                    group.addTask {
                        let counter = client.reference(withPath: "counter")
                        for _ in 0..<perClient {
                            let (committed, _) = try await counter.runTransactionBlock { data in
                                data.value = ((data.value as? Int) ?? 0) + 1
                                return TransactionResult.success(withValue: data)
                            }
                            #expect(committed)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(fixture.serverValue("counter") == .int(Int64(2 * perClient)))
        }
    }

    @Test("Permission: a refused write completes with permission_denied and is not stored; a revoked listen cancels its observer")
    func permissionDenied() async throws {
        try await ServerFixture.withServer { fixture in
            let user = fixture.makeClient(token: "user-token")
            let events = ValueLog()
            user.reference(withPath: "locked/notes").observe(.value, with: { events.add($0.value) }, withCancel: { error in
                let error = error as NSError
                events.add("cancel \(error.code) \(error.localizedFailureReason ?? "")")
            })
            try #require(await eventually { events.values == ["null"] })

            fixture.server.core.refuse(DatabasePath(unvalidated: "locked"), namespace: fixture.namespace)
            #expect(await eventually { events.last == "cancel 1 permission_denied" })

            let written = ValueLog()
            let mine = user.reference(withPath: "locked/mine")
            mine.observe(.value) { written.add($0.value) }
            mine.setValue("draft") { error, _ in written.add("completion \((error as NSError?)?.code ?? 0)") }
            #expect(await eventually { written.last == "completion 1" })
            // The optimistic value showed first; the observer's own listen was refused too, so it sees no revert.
            #expect(written.values == ["draft", "completion 1"])
            #expect(fixture.serverValue("locked/mine") == .null)
        }
    }

    @Test("A value deleted on the server while a client was offline is gone from its listener after it reconnects")
    func deletionWhileOfflineReachesListener() async throws {
        try await ServerFixture.withServer { fixture in
            let reader = fixture.makeClient()
            let writer = fixture.makeClient()
            let seen = ValueLog()
            reader.reference(withPath: "status").observe(.value) { seen.add($0.value) }
            try #require(await eventually { seen.values == ["null"] })
            _ = try await writer.reference(withPath: "status").setValue("busy")
            try #require(await eventually { seen.last == "busy" })

            reader.goOffline()
            _ = try await writer.reference(withPath: "status").removeValue()
            reader.goOnline()
            #expect(await eventually { seen.last == "null" })
            #expect(seen.values == ["null", "busy", "null"])
        }
    }
}
