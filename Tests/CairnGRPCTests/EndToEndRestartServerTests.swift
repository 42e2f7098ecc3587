import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// The server goes away under open streams and comes back on the same address: the client backs off,
    /// reconnects by itself (no `enableNetwork`), resumes its listens and sends each pending write exactly once.
    @Suite("Server restart over gRPC", .serialized)
    struct EndToEndRestartServerTests {
        @Test("The emulator is killed and restarted mid-stream: writes made meanwhile arrive once, listeners resume")
        func killAndRestart() async throws {
            let project = "cairn-e2e-restart"
            let database = DatabaseID(projectID: project)
            let first = try await FirestoreEmulator.start()
            var firstRunning = true
            defer { if firstRunning { first.stop() } }
            let app = EmulatorApp(project: project, emulator: first)
            let acknowledged = DocumentLog()
            let pending = DocumentLog()
            let registrations = [
                acknowledged.listen(to: app.db.document("rooms/acknowledged")),
                pending.listen(to: app.db.document("rooms/pending")),
            ]
            try await withHangGuard("setData before the restart") {
                try await app.db.document("rooms/acknowledged").setData(["v": "first server"])
            }
            try await acknowledged.wait(for: "the acknowledged write, settled") {
                $0.value == "first server" && !$0.hasPendingWrites && !$0.isFromCache
            }
            try await pending.wait(for: "the first server's answer") { $0.value == nil && !$0.isFromCache }
            // Later waits must match only snapshots taken after the server went away.
            acknowledged.clear()
            pending.clear()

            first.stop()
            firstRunning = false
            try await pending.wait(for: "the lost connection, as a snapshot from the cache") { $0.isFromCache }
            // Three increments while the server is down: a batch sent twice would count twice.
            let outcomes = WriteOutcomes()
            for attempt in 1...3 {
                app.db.document("rooms/pending").setData(
                    ["v": "while down", "n": FieldValue.increment(Int64(1))], merge: true,
                    completion: outcomes.completion("increment \(attempt)"))
            }
            try await pending.wait(for: "the local writes") { $0.value == "while down" && $0.hasPendingWrites }

            let second = try await FirestoreEmulator.start(port: first.port)
            defer { second.stop() }
            let rpc = try FirestoreRPC(
                configuration: .emulator(databaseID: database, host: second.host, port: second.port))
            defer { rpc.shutdown() }
            for attempt in 1...3 {
                #expect(try await outcomes.wait(for: "increment \(attempt)") == .acknowledged)
            }
            let stored = try await serverDocument(rpc, "rooms/pending")
            #expect(stored.data.fields["n"] == .integer(3), "each increment applied exactly once: \(stored.data)")
            #expect(stored.data.fields["v"] == .string("while down"))
            try await pending.wait(for: "the writes made while down, settled on the new server") {
                $0.value == "while down" && $0.snapshot.get("n") as? Int == 3 && !$0.hasPendingWrites
                    && !$0.isFromCache
            }
            // The new emulator starts empty: the resumed listen shows that state, not the first server's.
            #expect(try await serverDocument(rpc, "rooms/acknowledged").exists == false)
            try await acknowledged.wait(for: "the new server's state (no document)") {
                $0.value == nil && !$0.isFromCache
            }

            _ = try await rpc.commit([
                .set(
                    try DocumentKey(parsing: "rooms/acknowledged"), value: ObjectValue(["v": .string("second server")]))
            ])
            try await acknowledged.wait(for: "a change on the new server, live") {
                $0.value == "second server" && !$0.isFromCache
            }
            for registration in registrations { registration.remove() }
            await app.tearDown()
        }
    }
}
