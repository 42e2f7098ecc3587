import CairnCore
import Cairn
import CairnTestSupport
import Foundation
import Testing

extension EmulatorTests {
    /// Cairn and the official Python client (`google-cloud-firestore`) on one emulator: each reads what the other
    /// wrote, with every value type intact.
    @Suite(
        "End to end: interop with the official Python client", .serialized,
        .enabled(if: InteropPeer.shouldRun, InteropPeer.skipReason))
    struct EndToEndInteropTests {
        /// One field of each type the issue names. Firestore keeps timestamps to the microsecond, so the sample's
        /// fraction is whole microseconds; 2^53 + 1 is an integer no double can hold. (Firestore has no arrays
        /// directly inside arrays.)
        static let sample: [String: PeerValue] = [
            "name": .string("Zoë — 東京 🚀"),
            "big": .integer(9_007_199_254_740_993),
            "negative": .integer(-42),
            "ratio": .double(0.1),
            "whole": .double(3),
            "done": .boolean(true),
            "off": .boolean(false),
            "when": .timestamp(seconds: 1_700_000_000, nanos: 123_456_000),
            "tags": .array([.string("a"), .integer(2), .double(2.5), .null, .map(["inList": .boolean(true)])]),
            "nested": .map(["depth": .integer(1), "inner": .map(["flag": .boolean(false), "empty": .array([])])]),
        ]

        @Test("A document the Python client writes appears in a Cairn listener, from the server, types intact")
        func pythonWriteReachesCairnListener() async throws {
            let project = "cairn-interop-python-writes"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let app = EmulatorApp(project: project, emulator: emulator)
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("interop/from-python"))
            try await log.wait(for: "the server's answer that the document is missing") { !$0.snapshot.exists && !$0.isFromCache }

            try await InteropPeer.write(Self.sample, to: "interop/from-python", project: project, emulator: emulator)
            let seen = try await log.wait(for: "the Python client's document") { $0.snapshot.exists && !$0.isFromCache }
            #expect(try peerFields(seen) == Self.sample)
            registration.remove()
            await app.tearDown()
        }

        @Test("A document Cairn writes offline reaches the Python client only after enableNetwork, types intact")
        func cairnOfflineWriteReachesPython() async throws {
            let project = "cairn-interop-cairn-writes"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let app = EmulatorApp(project: project, emulator: emulator)
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("interop/from-cairn"))
            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            let fields = Self.sample.mapValues(\.api)
            app.db.document("interop/from-cairn").setData(fields, completion: nil)
            let local = try await log.wait(for: "the local write") { $0.snapshot.exists && $0.hasPendingWrites }
            #expect(try peerFields(local) == Self.sample, "Cairn's own view of what it wrote")
            #expect(try await InteropPeer.read("interop/from-cairn", project: project, emulator: emulator) == nil,
                    "the write must not reach the server while offline")

            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await app.db.waitForPendingWrites() }
            let read = try await InteropPeer.read("interop/from-cairn", project: project, emulator: emulator)
            #expect(read == Self.sample)
            registration.remove()
            await app.tearDown()
        }
    }
}

/// The fields of the document a listener saw, as ``PeerValue``s (nil for a missing document); a type
/// ``PeerValue`` does not cover is an error naming it.
private func peerFields(_ seen: DocumentLog.Seen) throws -> [String: PeerValue]? {
    try seen.snapshot.data()?.mapValues(PeerValue.init(api:))
}
