import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// The public API on the real core over gRPC to the official emulator: listeners, the network switch and
    /// concurrent writers, each test on a freshly reset project.
    @Suite("End to end over gRPC", .serialized)
    struct EndToEndSyncTests {
        @Test("An online listener gets the server's data, then another client's changes, not from the cache")
        func onlineListener() async throws {
            let project = "cairn-e2e-listen"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            _ = try await rpc.commit([.set(try DocumentKey(parsing: "rooms/a"), value: ObjectValue(["v": .string("server")]))])

            let app = EmulatorApp(project: project, emulator: emulator)
            let other = EmulatorApp(project: project, emulator: emulator)
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("rooms/a"))
            try await log.wait(for: "the server's document") { $0.value == "server" && !$0.isFromCache }

            _ = try await rpc.commit([.set(try DocumentKey(parsing: "rooms/a"), value: ObjectValue(["v": .string("raw")]))])
            try await log.wait(for: "the raw commit") { $0.value == "raw" && !$0.isFromCache }

            try await withHangGuard("the second client's setData") {
                try await other.db.document("rooms/a").setData(["v": "second client"])
            }
            try await log.wait(for: "the second client's write") {
                $0.value == "second client" && !$0.isFromCache && !$0.hasPendingWrites
            }
            registration.remove()
            await app.tearDown()
            await other.tearDown()
        }

        @Test("Writes made with the network disabled stay local, then reach the server when it is enabled")
        func disableAndEnableNetwork() async throws {
            let project = "cairn-e2e-network"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let app = EmulatorApp(project: project, emulator: try await FirestoreEmulator.shared())
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("rooms/b"))
            try await log.wait(for: "the server's answer that the document is missing") {
                $0.value == nil && !$0.isFromCache
            }

            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            app.db.document("rooms/b").setData(["v": "offline"], completion: nil)
            try await log.wait(for: "the local write, pending and from the cache") {
                $0.value == "offline" && $0.hasPendingWrites && $0.isFromCache
            }
            #expect(try await serverValue(rpc, "rooms/b") == nil, "the write must not reach the server while offline")

            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await app.db.waitForPendingWrites() }
            #expect(try await serverValue(rpc, "rooms/b") == "offline")
            try await log.wait(for: "the acknowledged write, settled") {
                $0.value == "offline" && !$0.hasPendingWrites && !$0.isFromCache
            }
            registration.remove()
            await app.tearDown()
        }

        @Test("Two clients write the same document offline; the one that reconnects last wins everywhere")
        func lastWriteWins() async throws {
            let project = "cairn-e2e-last-write"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let first = EmulatorApp(project: project, emulator: emulator)
            let second = EmulatorApp(project: project, emulator: emulator)
            let firstLog = DocumentLog()
            let secondLog = DocumentLog()
            let registrations = [
                firstLog.listen(to: first.db.document("rooms/c")), secondLog.listen(to: second.db.document("rooms/c")),
            ]
            for log in [firstLog, secondLog] {
                try await log.wait(for: "an online snapshot") { !$0.isFromCache }
            }

            try await withHangGuard("disableNetwork") { try await first.db.disableNetwork() }
            try await withHangGuard("disableNetwork") { try await second.db.disableNetwork() }
            first.db.document("rooms/c").setData(["v": "first"], completion: nil)
            second.db.document("rooms/c").setData(["v": "second"], completion: nil)
            try await firstLog.wait(for: "the first local write") { $0.value == "first" && $0.hasPendingWrites }
            try await secondLog.wait(for: "the second local write") { $0.value == "second" && $0.hasPendingWrites }

            try await withHangGuard("enableNetwork") { try await first.db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await first.db.waitForPendingWrites() }
            #expect(try await serverValue(rpc, "rooms/c") == "first")
            try await withHangGuard("enableNetwork") { try await second.db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await second.db.waitForPendingWrites() }
            #expect(try await serverValue(rpc, "rooms/c") == "second")

            for log in [firstLog, secondLog] {
                try await log.wait(for: "the last write, settled") {
                    $0.value == "second" && !$0.hasPendingWrites && !$0.isFromCache
                }
            }
            for registration in registrations { registration.remove() }
            await first.tearDown()
            await second.tearDown()
        }

        @Test("With no server at the host, listeners get cached snapshots and writes stay pending")
        func unreachableServer() async throws {
            let project = "cairn-e2e-unreachable"
            let emulator = try await FirestoreEmulator.shared()
            let app = EmulatorApp(project: project, emulator: emulator, port: 1)
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("rooms/d"))
            app.db.document("rooms/d").setData(["v": "queued"], completion: nil)
            try await log.wait(for: "the queued write, from the cache") {
                $0.value == "queued" && $0.hasPendingWrites && $0.isFromCache
            }
            registration.remove()
            await app.tearDown()
        }
    }
}
