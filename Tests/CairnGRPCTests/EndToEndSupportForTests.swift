import Cairn
import CairnModel
import CairnTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CairnGRPC

/// One app's `Firestore` instance on the emulator through the public API: a memory cache, its own callback queue,
/// and `useEmulator(withHost:port:)`. Its project is routed to the gRPC transport with the same mapping as
/// ``GRPCTransport/install(authTokenProvider:)``, but for this project only, so that suites running in parallel
/// in the test process keep their own transports.
final class EmulatorApp: @unchecked Sendable {
    let db: Firestore

    /// An instance of `project` on `emulator`, or on `port` of the emulator's host when given (no server there).
    init(project: String, emulator: FirestoreEmulator, port: Int? = nil) {
        DatastoreFactory.install(forProject: project) { configuration, queue in
            GRPCTransport.makeDatastore(configuration, queue: queue, authTokenProvider: nil)
        }
        let name = "\(project)-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
        db = Firestore.firestore(app: FirebaseApp.app(name: name)!)
        let settings = db.settings
        settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSettings())
        settings.dispatchQueue = DispatchQueue(label: name)
        db.settings = settings
        db.useEmulator(withHost: emulator.host, port: port ?? emulator.port)
    }

    func tearDown() async {
        try? await db.terminate()
    }
}

/// What a document listener saw: the field `v` and the metadata of each snapshot, in order.
final class DocumentLog: Sendable {
    struct Seen: Sendable, CustomStringConvertible {
        var value: String?
        var isFromCache: Bool
        var hasPendingWrites: Bool

        var description: String { "(\(value ?? "missing"), fromCache: \(isFromCache), pending: \(hasPendingWrites))" }
    }

    private let seen = Mutex<[Seen]>([])
    private let errors = Mutex<[String]>([])

    /// Listens to `ref` with metadata changes; the registration stays alive with the instance.
    @discardableResult
    func listen(to ref: DocumentReference) -> ListenerRegistration {
        ref.addSnapshotListener(includeMetadataChanges: true) { snapshot, error in
            if let error { self.errors.withLock { $0.append("\(error)") } }
            if let snapshot {
                let entry = Seen(
                    value: snapshot.data()?["v"] as? String, isFromCache: snapshot.metadata.isFromCache,
                    hasPendingWrites: snapshot.metadata.hasPendingWrites)
                self.seen.withLock { $0.append(entry) }
            }
        }
    }

    /// Waits for a snapshot that satisfies `predicate`; after a generous hang guard (the machine is loaded; no
    /// timing is asserted) the test fails naming `what` and everything seen.
    @discardableResult
    func wait(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ predicate: (Seen) -> Bool
    ) async throws -> Seen {
        for _ in 0..<3000 {
            if let match = seen.withLock({ $0.last(where: predicate) }) { return match }
            try await Task.sleep(for: .milliseconds(20))
        }
        let history = seen.withLock { $0 }
        let failures = errors.withLock { $0 }
        Issue.record("no snapshot with \(what); saw \(history), errors \(failures)", sourceLocation: sourceLocation)
        throw FirestoreErrorCode(.deadlineExceeded, "no snapshot with \(what)")
    }

    /// Forgets what was seen, so that the next wait only matches later snapshots.
    func clear() { seen.withLock { $0.removeAll() } }
}

/// The field `v` of the document stored on the emulator, read with a raw BatchGetDocuments (nil when missing).
func serverValue(_ rpc: FirestoreRPC, _ path: String) async throws -> String? {
    let document = try await rpc.lookup([try DocumentKey(parsing: path)])[0]
    guard document.exists, case .string(let value)? = document.data.fields["v"] else { return nil }
    return value
}

/// Runs `operation` (an API call that waits for the server, like `waitForPendingWrites`); after a generous hang
/// guard the test fails naming `what` instead of hanging (no timing is asserted).
func withHangGuard<T: Sendable>(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(60))
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let value = result else {
            Issue.record("\(what) did not complete", sourceLocation: sourceLocation)
            throw FirestoreErrorCode(.deadlineExceeded, "\(what) did not complete")
        }
        return value
    }
}
