// Cairn's `listener_latency` path: the public `Firestore` API on a persistent cache, as an app uses it. A
// `Firestore` instance is opened offline (its settings inject the unreachable datastore, and the network is disabled) on a copy of
// the suite's loaded LocalStore directory — a persistent cache directory *is* a LocalStore directory — with a
// snapshot listener on the listened query. Each patch is `DocumentReference.updateData`, timed until the
// listener's callback (on a dispatch queue of the suite's own) delivers a snapshot whose changes show it: the
// client core's write path, `SyncEngine`'s incremental view update and `EventManager`'s delivery.
//
// This file uses the public API (module Cairn), so its `Query` and `FieldPath` are Cairn's; only the offline
// datastore comes from the core.

import Cairn
import CairnCore
import Dispatch
import Foundation

/// A snapshot listener of a `Firestore` instance opened on a copy of the loaded cache.
final class FirestoreListener: ListenedQuery {
    /// How long a write may take to reach the listener before the run fails instead of hanging.
    static let timeoutSeconds = 60

    private let app: FirebaseApp
    private let db: Firestore
    private let collection: CollectionReference
    private let inbox = ListenerInbox()
    private var registration: (any ListenerRegistration)?
    private(set) var documentIDs: [String] = []

    /// Opens `directory` as the persistent cache of a new offline `Firestore` instance and listens to
    /// `collectionPath` (a slash-separated collection path) ordered by `orderField`.
    init(directory: String, collectionPath: String, orderField: String) throws {
        let name = "cairn-bench-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: "cairn-bench"))
        guard let app = FirebaseApp.app(name: name) else { throw BenchError("listener_latency: FirebaseApp \(name) is missing") }
        self.app = app
        db = Firestore.firestore(app: app)
        let settings = db.settings
        settings.dispatchQueue = DispatchQueue(label: "cairn-bench.listener")
        settings.datastoreProvider = UnreachableDatastore.provider
        settings.cacheSettings = PersistentCacheSettings(
            sizeBytes: NSNumber(value: FirestoreCacheSizeUnlimited), directory: URL(fileURLWithPath: directory))
        try db.setSettings(settings)
        collection = db.collection(collectionPath)
        try inbox.awaitCompletion("disabling the network", timeoutSeconds: Self.timeoutSeconds) { done in
            db.disableNetwork { error in done(error) }
        }
        let inbox = self.inbox
        try inbox.awaitFirstSnapshot(timeoutSeconds: Self.timeoutSeconds) {
            registration = collection.order(by: orderField).addSnapshotListener { snapshot, error in
                inbox.deliver(snapshot, error)
            }
        }
        documentIDs = inbox.firstDocumentIDs
    }

    func patch(documentID: String, text: String) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try inbox.awaitChange(documentID: documentID, text: text, timeoutSeconds: Self.timeoutSeconds) {
            collection.document(documentID).updateData(["edited": true, "text": text])
        }
        return ((inbox.lastArrival ?? start) - start).seconds * 1000
    }

    func close() throws {
        registration?.remove()
        registration = nil
        try inbox.awaitCompletion("terminating Firestore", timeoutSeconds: Self.timeoutSeconds) { done in
            db.terminate { error in done(error) }
        }
        app.delete { _ in }
    }
}

/// What the listener's callbacks deliver, handed to the waiting benchmark thread: the first snapshot's
/// document IDs, then the instant a snapshot shows the expected change.
private final class ListenerInbox: @unchecked Sendable {
    private let lock = NSLock()
    private let signal = DispatchSemaphore(value: 0)
    private var expected: (documentID: String, text: String)?
    private var waitingForFirst = false
    private var failure: (any Error)?
    private(set) var firstDocumentIDs: [String] = []
    private(set) var lastArrival: ContinuousClock.Instant?

    /// Runs `start`, which calls `done` (from any thread) when the operation completes, and waits for it.
    func awaitCompletion(
        _ what: String, timeoutSeconds: Int, _ start: (@escaping @Sendable ((any Error)?) -> Void) -> Void
    ) throws {
        lock.withLock { failure = nil }
        start { [self] error in
            lock.withLock { failure = error }
            signal.signal()
        }
        try wait(timeoutSeconds, what)
    }

    /// Runs `listen`, which adds the snapshot listener, and waits for its first snapshot.
    func awaitFirstSnapshot(timeoutSeconds: Int, _ listen: () -> Void) throws {
        lock.withLock {
            failure = nil
            waitingForFirst = true
        }
        listen()
        try wait(timeoutSeconds, "the first snapshot")
    }

    /// Expects a snapshot in which `documentID` is modified with `text`, runs `write`, and waits for it.
    func awaitChange(documentID: String, text: String, timeoutSeconds: Int, write: () -> Void) throws {
        lock.withLock {
            failure = nil
            expected = (documentID, text)
            lastArrival = nil
        }
        write()
        try wait(timeoutSeconds, "the snapshot showing the write to \(documentID)")
    }

    /// The listener's callback.
    func deliver(_ snapshot: QuerySnapshot?, _ error: (any Error)?) {
        let arrival = ContinuousClock.now
        let done: Bool = lock.withLock {
            guard let snapshot else {
                failure = error ?? BenchError("listener_latency: a snapshot listener delivered neither snapshot nor error")
                return true
            }
            if waitingForFirst {
                waitingForFirst = false
                firstDocumentIDs = snapshot.documents.map(\.documentID)
                return true
            }
            guard let expected,
                snapshot.documentChanges.contains(where: { change in
                    change.type == .modified && change.document.documentID == expected.documentID
                        && change.document.get("text") as? String == expected.text
                })
            else { return false }
            self.expected = nil
            lastArrival = arrival
            return true
        }
        if done { signal.signal() }
    }

    private func wait(_ timeoutSeconds: Int, _ what: String) throws {
        guard signal.wait(timeout: .now() + .seconds(timeoutSeconds)) == .success else {
            throw BenchError("listener_latency: waited \(timeoutSeconds) s for \(what)")
        }
        if let failure = lock.withLock({ failure }) {
            throw BenchError("listener_latency: \(what) failed: \(failure)")
        }
    }
}
