import CairnCoreTestSupport
import Cairn
import CairnCore
import Dispatch
import Foundation
import Testing

/// A Firestore instance on the real core, used as an app would: its own FirebaseApp (project `e2e-...`), its own
/// callback queue, a cache in a fresh temporary directory (or in memory), and the datastore the test passes
/// (by default none reachable: the instance works offline).
final class EndToEndEnvironment: @unchecked Sendable {
    enum Cache {
        case persistent
        case memoryEager
        case memoryLRU(Int64)
        /// `MemoryCacheSettings()`, whatever its default collector.
        case memoryDefault
    }

    let app: FirebaseApp
    let queue: DispatchQueue
    let directory: URL
    private(set) var db: Firestore
    private let cache: Cache
    private let datastore: DatastoreProvider
    private static let queueKey = DispatchSpecificKey<String>()

    /// An instance of project `<prefix>-<uuid>` whose clients use `datastore`.
    init(
        cache: Cache = .persistent, directory: URL? = nil, prefix: String = "e2e",
        datastore: @escaping DatastoreProvider = UnreachableDatastore.provider
    ) {
        let name = "\(prefix)-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: name))
        app = FirebaseApp.app(name: name)!
        queue = DispatchQueue(label: name)
        queue.setSpecific(key: Self.queueKey, value: name)
        self.directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent(name)
        self.cache = cache
        self.datastore = datastore
        db = Firestore.firestore(app: app)
        configure(db)
    }

    private func configure(_ db: Firestore) {
        let settings = db.settings
        settings.dispatchQueue = queue
        settings.datastoreProvider = datastore
        switch cache {
        case .persistent:
            settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 100 * 1024 * 1024), directory: directory)
        case .memoryEager:
            settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
        case .memoryLRU(let size):
            settings.cacheSettings = MemoryCacheSettings(
                garbageCollectorSettings: MemoryLRUGCSettings(sizeBytes: NSNumber(value: size)))
        case .memoryDefault:
            settings.cacheSettings = MemoryCacheSettings()
        }
        db.settings = settings
    }

    /// True on this environment's callback queue.
    var isOnCallbackQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == app.name }

    /// Terminates the instance and opens a new one on the same app and cache directory; without
    /// `waitForTermination` the new instance starts while the old one may still be closing the cache.
    func restart(waitForTermination: Bool = true) async throws {
        if waitForTermination {
            try await db.terminate()
        } else {
            db.terminate(completion: nil)
        }
        db = Firestore.firestore(app: app)
        configure(db)
    }

    /// Terminates the instance and deletes its cache directory.
    func tearDown() async {
        try? await db.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Values delivered by callbacks, taken one at a time in order; `next()` gives up (nil) after a generous
/// safety timeout so that a missing event fails the test instead of hanging it.
final class Inbox<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [Element] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<UncheckedBox<Element>?, Never>)?
    private var lastID = 0

    func put(_ element: Element) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.continuation.resume(returning: UncheckedBox(element))
            return
        }
        buffer.append(element)
        lock.unlock()
    }

    /// The next value, or nil when none arrives within `timeoutSeconds`.
    func next(timeoutSeconds: Double = 20) async -> Element? {
        let box: UncheckedBox<Element>? = await withCheckedContinuation { continuation in
            lock.lock()
            if !buffer.isEmpty {
                let element = buffer.removeFirst()
                lock.unlock()
                continuation.resume(returning: UncheckedBox(element))
                return
            }
            lastID += 1
            let id = lastID
            waiter = (id, continuation)
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds) { [self] in
                lock.lock()
                guard let waiter, waiter.id == id else { return lock.unlock() }
                self.waiter = nil
                lock.unlock()
                waiter.continuation.resume(returning: nil)
            }
        }
        return box?.value
    }

    /// The values received and not taken yet.
    var pending: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return buffer
    }
}

struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// One listener event, reduced to what the tests compare.
struct QueryEvent: Equatable {
    struct Change: Equatable {
        var type: DocumentChangeType
        var id: String
        var oldIndex: UInt
        var newIndex: UInt
    }

    var ids: [String]
    var changes: [Change]
    var isFromCache: Bool
    var hasPendingWrites: Bool

    init(_ snapshot: QuerySnapshot, includeMetadataChanges: Bool) {
        ids = snapshot.documents.map(\.documentID)
        changes = snapshot.documentChanges(includeMetadataChanges: includeMetadataChanges).map {
            Change(type: $0.type, id: $0.document.documentID, oldIndex: $0.oldIndex, newIndex: $0.newIndex)
        }
        isFromCache = snapshot.metadata.isFromCache
        hasPendingWrites = snapshot.metadata.hasPendingWrites
    }
}

/// The error code of a Firestore error.
func firestoreCode(_ error: (any Error)?) -> FirestoreErrorCode.Code? {
    (error as? FirestoreErrorCode)?.code
}
