import CairnCore
import CairnModel
import Dispatch
import Foundation
import Synchronization

/// A Cloud Firestore database, with its local cache: the entry point of the API, as in Firebase.
///
/// ```swift
/// FirebaseApp.configure(options: FirebaseOptions(projectID: "my-project"))
/// let db = Firestore.firestore()
/// db.collection("cities").document("SF").setData(["name": "San Francisco"]) { error in ... }
/// ```
///
/// There is one instance per app and database: `Firestore.firestore()` returns the same object each time
/// until it is terminated. The instance starts its client on the first call that needs it (any read, write,
/// listen or network call); from then on its ``settings`` are frozen. Settings that Firestore rejects (a cache
/// size under 1 MiB, say) make every call on the instance report that `invalidArgument` error.
public final class Firestore: @unchecked Sendable {
    /// The app whose project this instance opens.
    public let app: FirebaseApp
    /// The database (`(default)` unless named).
    let databaseID: DatabaseID

    private struct State {
        var settings: FirestoreSettings
        var client: Result<StartedClient, FirestoreErrorCode>?
        var terminated = false
        var indexManager: PersistentCacheIndexManager?
    }

    private let state: Mutex<State>
    private let environment: [String: String]

    private struct InstanceKey: Hashable {
        var appName: String
        var database: String
    }

    private static let instances = Mutex<[InstanceKey: Firestore]>([:])

    /// An instance outside the registry that reads `environment` instead of the process's (tests inject
    /// `XDG_DATA_HOME` and `FIRESTORE_EMULATOR_HOST` this way); apps use ``firestore(app:database:)``.
    init(app: FirebaseApp, database: String, environment: [String: String]) {
        self.app = app
        self.databaseID = DatabaseID(projectID: app.options.projectID ?? "", databaseID: database)
        self.environment = environment
        self.state = Mutex(State(settings: FirestoreSettings(environment: environment)))
    }

    /// The instance for the default app's default database.
    ///
    /// The default app must be configured first (``FirebaseApp/configure(options:)``); as in Firebase, calling
    /// this before is a programming error that stops the program.
    public static func firestore() -> Firestore {
        guard let app = FirebaseApp.app() else {
            preconditionFailure(
                "Failed to get FirebaseApp instance. Please call FirebaseApp.configure() before using Firestore")
        }
        return firestore(app: app)
    }

    /// The instance for `app`'s default database.
    public static func firestore(app: FirebaseApp) -> Firestore {
        firestore(app: app, database: DatabaseID.defaultDatabase)
    }

    /// The instance for the default app's database named `database`.
    public static func firestore(database: String) -> Firestore {
        guard let app = FirebaseApp.app() else {
            preconditionFailure(
                "Failed to get FirebaseApp instance. Please call FirebaseApp.configure() before using Firestore")
        }
        return firestore(app: app, database: database)
    }

    /// The instance for `app`'s database named `database`.
    public static func firestore(app: FirebaseApp, database: String) -> Firestore {
        let key = InstanceKey(appName: app.name, database: database)
        FirebaseApp.registerDeletionHook(product: "firestore") { Firestore.removeInstances(of: $0) }
        return instances.withLock { instances in
            if let existing = instances[key], existing.app === app { return existing }
            let created = Firestore(app: app, database: database, environment: ProcessInfo.processInfo.environment)
            instances[key] = created
            return created
        }
    }

    /// Forgets the instances of a deleted app and terminates them.
    static func removeInstances(of app: FirebaseApp) {
        let removed = instances.withLock { instances in
            let keys = instances.keys.filter { $0.appName == app.name }
            return keys.compactMap { instances.removeValue(forKey: $0) }
        }
        for instance in removed { instance.terminate(completion: nil) }
    }

    /// Removes this instance from the registry, so that `firestore(app:)` makes a new one (after `terminate`).
    func unregister() {
        let key = InstanceKey(appName: app.name, database: databaseID.databaseID)
        Self.instances.withLock { instances in
            if instances[key] === self { instances[key] = nil }
        }
    }

    /// The instance's settings. Reading returns a copy; assigning copies the value in.
    ///
    /// Assign before any other call: once the instance has started, an assignment is ignored, as Firebase
    /// forbids it ("Firestore instance has already been started and its settings can no longer be changed."), and
    /// the message is written to standard error. ``setSettings(_:)`` reports it as an error instead.
    public var settings: FirestoreSettings {
        get { state.withLock { $0.settings.copy() } }
        set {
            do throws(FirestoreErrorCode) {
                try setSettings(newValue)
            } catch {
                UnhandledErrors.report(error)
            }
        }
    }

    /// Sets the settings, or throws `failedPrecondition` when the instance has already started (Cairn; Firebase
    /// raises an exception there).
    ///
    /// ```swift
    /// try db.setSettings(settings)
    /// ```
    public func setSettings(_ settings: FirestoreSettings) throws(FirestoreErrorCode) {
        let copy = settings.copy()
        let started = state.withLock { state in
            if state.client != nil || state.terminated { return true }
            state.settings = copy
            return false
        }
        if started { throw Self.settingsFrozenError }
    }

    /// Connects to the Firestore emulator at `host:port` without TLS. Call before any other call.
    ///
    /// ```swift
    /// db.useEmulator(withHost: "localhost", port: 8080)
    /// ```
    public func useEmulator(withHost host: String, port: Int) {
        let settings = self.settings
        settings.host = "\(host):\(port)"
        settings.isSSLEnabled = false
        self.settings = settings
    }

    static let settingsFrozenError = FirestoreErrorCode(
        .failedPrecondition,
        "Firestore instance has already been started and its settings can no longer be changed. You can only set "
            + "settings before calling any other methods on a Firestore instance.")

    static let terminatedError = FirestoreErrorCode(
        .failedPrecondition,
        "The client has already been terminated. Get a new instance with Firestore.firestore() to continue.")

    /// The client, started on first use with the settings frozen; or the error every call reports.
    func client() -> Result<FirestoreClient, FirestoreErrorCode> {
        state.withLock { state in
            if state.terminated { return .failure(Self.terminatedError) }
            if let client = state.client { return client.map(\.client) }
            let settings = state.settings
            let started: Result<StartedClient, FirestoreErrorCode>
            do throws(FirestoreErrorCode) {
                if databaseID.projectID.isEmpty {
                    throw FirestoreErrorCode(
                        .invalidArgument,
                        "FirebaseOptions.projectID must be set to a valid project ID; set it before "
                            + "FirebaseApp.configure(options:).")
                }
                try settings.validate()
                let configuration = ClientConfiguration(
                    databaseID: databaseID, settings: settings, environment: environment, appName: app.name)
                started = .success(try configuration.startClient())
            } catch {
                started = .failure(error)
            }
            state.client = started
            return started.map(\.client)
        }
    }

    /// True while a started client runs (not before the first call, not after `terminate`).
    var isRunning: Bool {
        state.withLock { state in
            guard !state.terminated, case .success? = state.client else { return false }
            return true
        }
    }

    /// Marks the instance terminated and returns its running client, if any (`nil` when already terminated, so
    /// that `terminate` is idempotent).
    func markTerminated() -> StartedClient? {
        state.withLock { state in
            if state.terminated { return nil }
            state.terminated = true
            guard case .success(let client)? = state.client else { return nil }
            return client
        }
    }

    /// The index manager of the started `client`, made on first use and the same object afterwards (as Firebase's).
    func indexManager(of client: FirestoreClient) -> PersistentCacheIndexManager {
        state.withLock { state in
            if let manager = state.indexManager { return manager }
            let manager = PersistentCacheIndexManager(client: client)
            state.indexManager = manager
            return manager
        }
    }

    /// The resolved configuration of the current settings (for `clearPersistence`).
    var configuration: ClientConfiguration {
        ClientConfiguration(
            databaseID: databaseID, settings: state.withLock { $0.settings }, environment: environment, appName: app.name)
    }

    /// The queue user callbacks run on.
    var callbackQueue: DispatchQueue { state.withLock { $0.settings.dispatchQueue } }

    /// Runs `body` on the callback queue.
    func deliver(_ body: @escaping () -> Void) {
        let box = UncheckedSendable(body)
        callbackQueue.async { box.value() }
    }

    /// Calls an optional completion with `error` on the callback queue; without one, an error is reported to
    /// ``UnhandledErrors``.
    func complete(_ completion: ((Error?) -> Void)?, _ error: FirestoreErrorCode?) {
        guard let completion else {
            if let error { UnhandledErrors.report(error) }
            return
        }
        deliver { completion(error) }
    }
}
