import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Foundation
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// Field transforms written offline: local estimates until the server answers, then the server's results.
    @Suite("Transforms over gRPC", .serialized)
    struct EndToEndTransformTests {
        @Test("Offline serverTimestamp/increment/arrayUnion read as none/estimate/previous, then resolve on the server")
        func transformsWrittenOffline() async throws {
            let project = "cairn-e2e-transforms"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let key = try DocumentKey(parsing: "counters/t")
            let previous = CairnModel.Timestamp(seconds: 1_000_000, nanoseconds: 5_000)
            _ = try await rpc.commit([
                .set(
                    key,
                    value: ObjectValue([
                        "count": .integer(10), "tags": .array([.string("a")]), "ts": .timestamp(previous),
                    ]))
            ])
            let app = EmulatorApp(project: project, emulator: try await FirestoreEmulator.shared())
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("counters/t"))
            try await log.wait(for: "the server's document") { $0.snapshot.exists && !$0.isFromCache }

            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            let before = Date()
            let outcomes = WriteOutcomes()
            app.db.document("counters/t").updateData(
                [
                    "ts": FieldValue.serverTimestamp(), "count": FieldValue.increment(Int64(5)),
                    "tags": FieldValue.arrayUnion(["b"]),
                ], completion: outcomes.completion("transforms"))
            let local = try await log.wait(for: "the local write") { $0.hasPendingWrites }.snapshot
            let after = Date()
            #expect(local.get("ts", serverTimestampBehavior: .none) is NSNull)
            let estimate = try #require(local.get("ts", serverTimestampBehavior: .estimate) as? Cairn.Timestamp)
            #expect(
                estimate.dateValue() >= before.addingTimeInterval(-0.001) && estimate.dateValue() <= after,
                "the estimate is the local write time: \(estimate) not within \(before)...\(after)")
            let previousRead = local.get("ts", serverTimestampBehavior: .previous) as? Cairn.Timestamp
            #expect(previousRead == Cairn.Timestamp(seconds: previous.seconds, nanoseconds: previous.nanoseconds))
            #expect(local.get("count") as? Int == 15, "the local increment applies to the cached 10")
            #expect(local.get("tags") as? [String] == ["a", "b"])

            // Meanwhile the server moves on; the transforms must apply to its values, not to the local ones.
            _ = try await rpc.commit([
                .patch(
                    key, value: ObjectValue(["count": .integer(100), "tags": .array([.string("x")])]),
                    mask: FieldMask([FieldPath(segments: ["count"]), FieldPath(segments: ["tags"])]))
            ])
            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await app.db.waitForPendingWrites() }
            #expect(try await outcomes.wait(for: "transforms") == .acknowledged)

            let stored = try await serverDocument(rpc, "counters/t")
            #expect(stored.data.fields["count"] == .integer(105))
            #expect(stored.data.fields["tags"] == .array([.string("x"), .string("b")]))
            guard case .timestamp(let serverTime)? = stored.data.fields["ts"] else {
                Issue.record("the server stored no timestamp: \(stored.data)")
                return
            }
            #expect(serverTime != previous)
            let synced = try await log.wait(for: "the server's results") {
                !$0.hasPendingWrites && !$0.isFromCache && $0.snapshot.get("count") as? Int == 105
            }.snapshot
            #expect(synced.get("tags") as? [String] == ["x", "b"])
            let expected = Cairn.Timestamp(seconds: serverTime.seconds, nanoseconds: serverTime.nanoseconds)
            for behavior in [ServerTimestampBehavior.none, .estimate, .previous] {
                #expect(
                    synced.get("ts", serverTimestampBehavior: behavior) as? Cairn.Timestamp == expected,
                    "the listener shows the server's timestamp (\(behavior))")
            }
            registration.remove()
            await app.tearDown()
        }
    }
}
