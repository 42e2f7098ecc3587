import CairnDatabase
import CairnDatabaseCore
import CairnTestSupport
import Foundation
import Testing

/// Issue 16's proof 4 through the local server: transactions from two processes on one counter, a transaction
/// started offline, and the `set` abort. (The `maxretry` abort needs 25 stale answers in a row: it is proven
/// against the scripted connection, in DatabaseTransactionTests.)
@Suite("Realtime Database transactions end to end: two processes, offline, overridden by a set")
struct TransactionEndToEndTests {
    /// A new client, taken offline, and its reference to `path`, where the server holds `value`.
    private static func offlineClient(_ fixture: ServerFixture, at path: String, serverHolds value: Int64) throws -> (Database, DatabaseReference) {
        try fixture.write(path, .int(value))
        let client = fixture.makeClient()
        client.goOffline()
        return (client, client.reference(withPath: path))
    }

    /// Where the Admin SDK runs: it reads `value` at `counter` on the server.
    private static func expectAdminSDKReadsCounter(_ value: Int, _ fixture: ServerFixture,
                                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        guard AdminSDK.shouldRun else { return }
        let read = try await AdminSDK.read("counter", port: fixture.port, namespace: fixture.namespace)
        #expect((read as? NSNumber)?.intValue == value, "the Admin SDK read \(read)", sourceLocation: sourceLocation)
    }

    @Test("Two processes run 25 transactions each on one counter at the same time: it ends at exactly 50, also for the Admin SDK, and each reports 25 committed")
    func twoProcessesIncrementOneCounter() async throws {
        try await ServerFixture.withServer { fixture in
            let arguments = ["increment", "--emulator", "127.0.0.1:\(fixture.port)", "--ns", fixture.namespace, "--count", "25"]
            let first = try DatabaseChild(arguments)
            defer { first.kill() }
            let second = try DatabaseChild(arguments)
            defer { second.kill() }

            #expect(await first.waitForLine("done 25 committed"), "\(first)")
            #expect(await second.waitForLine("done 25 committed"), "\(second)")
            await first.killAndWait()
            await second.killAndWait()
            #expect(fixture.serverValue("counter") == .int(50))
            try await Self.expectAdminSDKReadsCounter(50, fixture)
        }
    }

    @Test("A transaction started offline shows its value at once, is sent after goOnline, runs again on the server's value and commits; another client and the Admin SDK see it")
    func transactionStartedOffline() async throws {
        try await ServerFixture.withServer { fixture in
            let (client, counter) = try Self.offlineClient(fixture, at: "counter", serverHolds: 10)
            let local = ValueLog()
            counter.observe(.value) { local.add($0.value) }
            let completion = ValueLog()
            counter.runTransactionBlock({ data in
                data.value = (data.value as? Int ?? 0) + 1
                return .success(withValue: data)
            }, andCompletionBlock: { error, committed, snapshot in
                completion.add("\(error.map { "\($0)" } ?? "ok") \(committed) \(snapshot?.value ?? "nil")")
            })
            try #require(await eventually { local.values == ["1"] }, "the local value: \(local.values)")
            #expect(completion.values.isEmpty)
            #expect(fixture.serverValue("counter") == .int(10))

            client.goOnline()
            try #require(await eventually { !completion.values.isEmpty }, "\(local.values)")
            #expect(completion.values == ["ok true 11"])
            #expect(fixture.serverValue("counter") == .int(11))
            #expect(await eventually { local.last == "11" }, "\(local.values)")

            let other = fixture.makeClient()
            let seen = ValueLog()
            other.reference(withPath: "counter").observe(.value) { seen.add($0.value) }
            #expect(await eventually { seen.last == "11" }, "\(seen.values)")
            try await Self.expectAdminSDKReadsCounter(11, fixture)
        }
    }

    @Test("A setValue on the path of an outstanding transaction aborts it with Firebase's set reason when the server finds it stale; the set wins")
    func transactionOverriddenBySet() async throws {
        try await ServerFixture.withServer { fixture in
            let (client, score) = try Self.offlineClient(fixture, at: "score", serverHolds: 5)
            let runs = ValueLog()
            let completion = ValueLog()
            score.runTransactionBlock({ data in
                runs.add(data.value)
                data.value = (data.value as? Int ?? 0) + 1
                return .success(withValue: data)
            }, andCompletionBlock: { error, committed, _ in
                let error = error as NSError?
                completion.add("\(error?.localizedFailureReason ?? "ok") \(error?.localizedDescription ?? "") \(committed)")
            })
            let written = ValueLog()
            score.setValue(100) { error, _ in written.add(error.map { "\($0)" } ?? "ok") }

            client.goOnline()
            try #require(await eventually { !completion.values.isEmpty && !written.values.isEmpty }, "\(completion.values) \(written.values)")
            #expect(completion.values == ["set The transaction was overridden by a subsequent set false"])
            #expect(written.values == ["ok"])
            #expect(runs.values == ["null"], "the transaction ran again: \(runs.values)")
            #expect(fixture.serverValue("score") == .int(100))
        }
    }
}
