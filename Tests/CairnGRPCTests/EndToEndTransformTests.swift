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

            // Meanwhile the server moves on; the transforms must apply to its values, not to the local ones. The
            // patch is idempotent, so it is retried when the emulator fails it for a listen stream that just ended.
            try await commitRetryingEmulatorListenerRace(rpc, [
                .patch(
                    key, value: ObjectValue(["count": .integer(100), "tags": .array([.string("x")])]),
                    mask: FieldMask([FieldPath(segments: ["count"]), FieldPath(segments: ["tags"])]))
            ])
            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await app.db.waitForPendingWrites() }
            #expect(try await outcomes.wait(for: "transforms") == .acknowledged)

            let stored = try await serverDocument(rpc, "counters/t")
            // The increment applies to the server's 100. The emulator can report a committed write as failed (the
            // race above, on the write stream); the client then sends it again, as Firebase's SDKs do, and the
            // server applies it twice: 110. Either way the listener must end on the server's value.
            guard case .integer(let count)? = stored.data.fields["count"], count == 105 || count == 110 else {
                Issue.record("the increment did not apply to the server's 100: \(stored.data)")
                return
            }
            #expect(stored.data.fields["tags"] == .array([.string("x"), .string("b")]))
            guard case .timestamp(let serverTime)? = stored.data.fields["ts"] else {
                Issue.record("the server stored no timestamp: \(stored.data)")
                return
            }
            #expect(serverTime != previous)
            let resolved: @Sendable (DocumentLog.Seen) -> Bool = {
                !$0.hasPendingWrites && !$0.isFromCache && $0.snapshot.get("count") as? Int == Int(count)
            }
            if await log.poll(seconds: 20, resolved) == nil {
                // The same emulator race can drop this listener's update of the acknowledged write; another commit
                // to the document makes the emulator send it again, at a newer version.
                try await commitRetryingEmulatorListenerRace(rpc, [
                    .patch(key, value: ObjectValue(["nudge": .integer(1)]), mask: FieldMask([FieldPath(segments: ["nudge"])]))
                ])
            }
            let synced = try await log.wait(for: "the server's results", resolved).snapshot
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
