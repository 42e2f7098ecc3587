import Cairn
import CairnTestSupport
import Foundation
import Synchronization
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
            let log = FieldsLog()
            let registration = log.listen(to: app.db.document("interop/from-python"))
            try await log.wait(for: "the server's answer that the document is missing") { $0.fields == nil && !$0.isFromCache }

            try await InteropPeer.write(Self.sample, to: "interop/from-python", project: project, emulator: emulator)
            let seen = try await log.wait(for: "the Python client's document") { $0.fields != nil && !$0.isFromCache }
            #expect(seen.fields == Self.sample)
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
            let log = FieldsLog()
            let registration = log.listen(to: app.db.document("interop/from-cairn"))
            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            let fields = Self.sample.mapValues(\.api)
            app.db.document("interop/from-cairn").setData(fields, completion: nil)
            let local = try await log.wait(for: "the local write") { $0.fields != nil && $0.hasPendingWrites }
            #expect(local.fields == Self.sample, "Cairn's own view of what it wrote")
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

/// What a document listener saw: the fields as ``PeerValue``s (nil for a missing document, or one with a type
/// ``PeerValue`` does not cover: then `problem` says which) and the metadata.
private final class FieldsLog: Sendable {
    struct Seen: Sendable {
        var fields: [String: PeerValue]?
        /// Why the document's data could not be read as ``PeerValue``s.
        var problem: String?
        var isFromCache: Bool
        var hasPendingWrites: Bool
    }

    private let seen = Mutex<[Seen]>([])

    /// Listens to `ref` with metadata changes; the registration stays alive with the instance.
    func listen(to ref: DocumentReference) -> ListenerRegistration {
        ref.addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
            guard let snapshot else { return }
            var fields: [String: PeerValue]?
            var problem: String?
            do {
                if let data = snapshot.data() { fields = try data.mapValues(PeerValue.init(api:)) }
            } catch {
                problem = "\(error)"
            }
            let entry = Seen(
                fields: fields, problem: problem, isFromCache: snapshot.metadata.isFromCache,
                hasPendingWrites: snapshot.metadata.hasPendingWrites)
            self.seen.withLock { $0.append(entry) }
        }
    }

    /// Waits for a snapshot that satisfies `predicate`, with the hang guard of ``DocumentLog``.
    @discardableResult
    func wait(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ predicate: (Seen) -> Bool
    ) async throws -> Seen {
        for _ in 0..<3000 {
            if let match = seen.withLock({ $0.last(where: predicate) }) { return match }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no snapshot with \(what); saw \(seen.withLock { $0 })", sourceLocation: sourceLocation)
        throw FirestoreErrorCode(.deadlineExceeded, "no snapshot with \(what)")
    }
}
