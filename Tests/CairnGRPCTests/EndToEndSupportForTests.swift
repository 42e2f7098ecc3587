import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CairnGRPC

/// One app's `Firestore` instance on the emulator through the public API: a memory cache, its own callback queue,
/// and `useEmulator(withHost:port:)`. Its datastore is the default gRPC one, unless `auth` asks for another
/// emulator user than `owner` (then the same gRPC datastore with that user, injected through the settings).
final class EmulatorApp: @unchecked Sendable {
    let db: Firestore

    /// An instance of `project` on `emulator`, or on `port` of the emulator's host when given (no server there),
    /// connecting as `auth` (the `owner` token by default, which bypasses security rules).
    init(project: String, emulator: FirestoreEmulator, port: Int? = nil, auth: EmulatorAuth = .owner) {
        let name = "\(project)-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
        db = Firestore.firestore(app: FirebaseApp.app(name: name)!)
        let settings = db.settings
        settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
        settings.dispatchQueue = DispatchQueue(label: name)
        if auth != .owner { settings.datastoreProvider = GRPCDatastore.provider(authTokenProvider: nil, emulatorAuth: auth) }
        db.settings = settings
        db.useEmulator(withHost: emulator.host, port: port ?? emulator.port)
    }

    func tearDown() async {
        try? await db.terminate()
    }
}

/// What a document listener saw: the field `v` and the metadata of each snapshot (and the snapshot), in order.
final class DocumentLog: Sendable {
    struct Seen: Sendable, CustomStringConvertible {
        var value: String?
        var isFromCache: Bool
        var hasPendingWrites: Bool
        var snapshot: DocumentSnapshot

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
                    hasPendingWrites: snapshot.metadata.hasPendingWrites, snapshot: snapshot)
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

    /// The last snapshot that satisfies `predicate` within `seconds`, nil when none came (nothing is recorded).
    func poll(seconds: Double, _ predicate: (Seen) -> Bool) async -> Seen? {
        for _ in 0..<max(1, Int(seconds * 50)) {
            if let match = seen.withLock({ $0.last(where: predicate) }) { return match }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Forgets what was seen, so that the next wait only matches later snapshots.
    func clear() { seen.withLock { $0.removeAll() } }
}

/// The field `v` of the document stored on the emulator, read with a raw BatchGetDocuments (nil when missing).
func serverValue(_ rpc: FirestoreRPC, _ path: String) async throws -> String? {
    let document = try await serverDocument(rpc, path)
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

/// The completions of writes made through the public API, by name: acknowledged, or failed with an error.
final class WriteOutcomes: Sendable {
    enum Outcome: Sendable, Equatable, CustomStringConvertible {
        case acknowledged
        /// The code when the error is a ``FirestoreErrorCode`` (nil otherwise), and its description.
        case failed(FirestoreErrorCode.Code?, String)

        var description: String {
            switch self {
            case .acknowledged: "acknowledged"
            case .failed(_, let message): "failed: \(message)"
            }
        }

        /// The Firestore error code of a failed write (nil when acknowledged or not a Firestore error).
        var code: FirestoreErrorCode.Code? {
            if case .failed(let code, _) = self { return code }
            return nil
        }
    }

    private let outcomes = Mutex<[String: Outcome]>([:])

    /// The completion to pass to a write; it records the write's outcome under `name`.
    func completion(_ name: String) -> (Error?) -> Void {
        { error in
            let outcome: Outcome = error.map { .failed(($0 as? FirestoreErrorCode)?.code, "\($0)") } ?? .acknowledged
            self.outcomes.withLock { $0[name] = outcome }
        }
    }

    /// Waits for the outcome of the write named `name`; after a generous hang guard (no timing is asserted) the
    /// test fails naming it.
    func wait(for name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        for _ in 0..<3000 {
            if let outcome = outcomes.withLock({ $0[name] }) { return outcome }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the write \(name) never completed", sourceLocation: sourceLocation)
        throw FirestoreErrorCode(.deadlineExceeded, "the write \(name) never completed")
    }
}

/// The document stored on the emulator, read with a raw BatchGetDocuments (`exists` is false when missing).
func serverDocument(_ rpc: FirestoreRPC, _ path: String) async throws -> CairnModel.Document {
    try await rpc.lookup([try DocumentKey(parsing: path)])[0]
}

/// Commits `writes` with a raw Commit, again when the emulator fails it for a listen stream that ended at the same
/// moment: the emulator sends each commit's changes to every listener inside the commit, and a listener whose
/// stream was just cancelled or completed (a client's `disableNetwork`, a terminated client) makes the commit
/// report `cancelled` ("call already cancelled") or `unknown` ("Stream is already completed") after it was
/// applied. Only for idempotent writes (sets and patches with fixed values): a retried one changes nothing.
func commitRetryingEmulatorListenerRace(_ rpc: FirestoreRPC, _ writes: [Mutation]) async throws {
    var attempt = 1
    while true {
        let failure: FirestoreErrorCode
        do {
            _ = try await rpc.commit(writes)
            return
        } catch {
            failure = error
        }
        guard attempt < 5, failure.code == .cancelled || failure.code == .unknown else { throw failure }
        try await Task.sleep(for: .milliseconds(50 * attempt))
        attempt += 1
    }
}
