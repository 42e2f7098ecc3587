import CairnCore
import CairnCoreTestSupport
import CairnModel
import Dispatch
import Foundation
import Synchronization

@testable import Cairn

/// One test's Firestore on the real core (memory cache) over a scripted server (``AcknowledgingDatastore``): a
/// uniquely named app and project, and a serial callback queue whose `flush()` waits for every callback already
/// dispatched.
///
/// With `manualWorker` the core runs on an `AsyncQueue.manual()`: nothing happens until the test calls
/// ``settle()``, so the test waits on no real time (no polling); such a test uses the completion-handler API,
/// since an `await` on the core would wait for a drain that never comes.
struct APITestEnvironment {
    let db: Firestore
    let queue: DispatchQueue
    let projectID: String
    /// The core's worker queue when the test drives it (`manualWorker`), else `nil`.
    let worker: AsyncQueue?
    private let made = Recorder<AcknowledgingDatastore>()
    private static let queueKey = DispatchSpecificKey<String>()

    init(manualWorker: Bool = false, configure: (FirestoreSettings) -> Void = { _ in }) {
        projectID = "test-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: projectID, options: FirebaseOptions(projectID: projectID))
        db = Firestore.firestore(app: FirebaseApp.app(name: projectID)!)
        queue = DispatchQueue(label: projectID)
        queue.setSpecific(key: Self.queueKey, value: projectID)
        let settings = db.settings
        settings.dispatchQueue = queue
        settings.cacheSettings = MemoryCacheSettings()
        settings.datastoreProvider = AcknowledgingDatastore.provider { [made] datastore in made.append(datastore) }
        worker = manualWorker ? AsyncQueue.manual() : nil
        settings.workerQueue = worker
        configure(settings)
        db.settings = settings
    }

    /// The scripted server behind `db` (starts the instance).
    var server: AcknowledgingDatastore {
        _ = db.client()
        return made.values.last!
    }

    /// The batches the server received once every write made so far is acknowledged or rejected.
    func writes() async throws -> [[Mutation]] {
        try await db.waitForPendingWrites()
        return server.writes
    }

    /// Waits until every callback dispatched so far has run.
    func flush() { queue.sync {} }

    /// With a manual worker: runs everything the core has to do, delivers the callbacks it dispatched, then runs
    /// what those callbacks asked of the core.
    func settle() {
        guard let worker else { preconditionFailure("settle() needs APITestEnvironment(manualWorker: true)") }
        worker.drain()
        flush()
        worker.drain()
    }

    /// True when called on this environment's callback queue.
    var isOnCallbackQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == projectID }
}

/// A found document for fake snapshots.
func fakeDocument(_ path: String, _ fields: [String: Value], local: Bool = false) -> CairnModel.Document {
    CairnModel.Document(
        key: try! DocumentKey(parsing: path), state: .found, version: CairnModel.Timestamp(seconds: 1, nanoseconds: 0),
        data: ObjectValue(fields), hasLocalMutations: local)
}
