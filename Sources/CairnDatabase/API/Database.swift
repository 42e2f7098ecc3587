import CairnDatabaseCore
import Foundation

/// A Realtime Database: one per app and database URL (Firebase's `Database`).
///
/// Settings (``isPersistenceEnabled``, ``persistenceCacheSizeBytes``, ``callbackQueue``,
/// ``useEmulator(withHost:port:)``) apply before first use: the first reference freezes them. A later assignment
/// is ignored and Firebase's message is written to standard error (Firebase raises an exception).
///
/// ```swift
/// FirebaseApp.configure(options: options)            // options.databaseURL = "https://my-db.firebaseio.com"
/// let db = Database.database()
/// db.reference(withPath: "scores").observe(.childAdded) { snapshot in print(snapshot.key) }
/// ```
///
/// A database connects to its server over Firebase's protocol v5 (a WebSocket to `databaseURL`'s host, or to the
/// emulator that ``useEmulator(withHost:port:)`` or `FIREBASE_DATABASE_EMULATOR_HOST` names), reconnecting with
/// Firebase's backoff; ``authTokenProvider`` supplies the token for production (Docs/Database.md).
public final class Database: @unchecked Sendable {
    /// The app this database belongs to.
    public private(set) weak var app: FirebaseApp?
    private(set) var url: DatabaseURL
    private let lock = NSLock()
    private var started: Repo?
    private var connection: (any DatabaseConnection)?
    private var clock: @Sendable () -> Date = { Date() }
    private var getDataWait: TimeInterval = 3
    private var storedPersistence = false
    private var storedCacheSize: UInt = 10 * 1024 * 1024
    private var storedQueue = DispatchQueue.main
    private var storedTokenProvider: AuthTokenProvider?
    private var storedCacheDirectory: String?
    private var nextHandle: DatabaseHandle = 1

    private static let instancesLock = NSLock()
    nonisolated(unsafe) private static var instances: [String: Database] = [:]

    init(app: FirebaseApp, url: DatabaseURL) {
        self.app = app
        self.url = url
    }

    // MARK: Instances

    /// The database of the default app.
    public static func database() -> Database {
        guard let app = FirebaseApp.app() else {
            preconditionFailure("The default FirebaseApp instance must be configured before the default Database instance can be initialized. Call FirebaseApp.configure() first.")
        }
        return database(app: app)
    }

    /// The default app's database at `url`.
    public static func database(url: String) -> Database {
        guard let app = FirebaseApp.app() else {
            preconditionFailure("The default FirebaseApp instance must be configured before the default Database instance can be initialized. Call FirebaseApp.configure() first.")
        }
        return database(app: app, url: url)
    }

    /// `app`'s database at its options' `databaseURL`.
    public static func database(app: FirebaseApp) -> Database {
        guard let url = app.options.databaseURL else {
            preconditionFailure("Failed to get FirebaseDatabase instance: Specify DatabaseURL within FIRApp or from your databaseForApp:URL: call.")
        }
        return database(app: app, url: url)
    }

    /// `app`'s database at `url` (`https://<namespace>.firebaseio.com`, a regional host, or `?ns=<namespace>`).
    public static func database(app: FirebaseApp, url: String) -> Database {
        let parsed: DatabaseURL
        do { parsed = try DatabaseURL(url) } catch { preconditionFailure(error.message) }
        FirebaseApp.registerDeletionHook(product: "database") { Database.removeInstances(of: $0) }
        let key = app.name + "|" + parsed.description
        return instancesLock.withLock {
            if let existing = instances[key], existing.app === app { return existing }
            let created = Database(app: app, url: parsed)
            instances[key] = created
            return created
        }
    }

    /// The SDK's version: Cairn's (`FirebaseVersion()` reports the same).
    public class func sdkVersion() -> String { CairnVersion.current }

    /// The clients of every database that started, of every app (for the class-level `goOffline`/`goOnline`).
    static func startedRepos() -> [Repo] {
        instancesLock.withLock { Array(instances.values) }.compactMap { database in database.lock.withLock { database.started } }
    }

    static func removeInstances(of app: FirebaseApp) {
        let removed = instancesLock.withLock {
            let keys = instances.keys.filter { $0.hasPrefix(app.name + "|") }
            return keys.compactMap { instances.removeValue(forKey: $0) }
        }
        for database in removed {
            let repo = database.lock.withLock { database.started }
            repo?.goOffline()
            repo?.closePersistence()
        }
    }

    // MARK: References

    /// The root of the database.
    public func reference() -> DatabaseReference { DatabaseReference(database: self, path: .root) }

    /// The location at `path` ("users/ada"). An invalid path gives a reference that carries the error, which every
    /// use of it reports (see ``DatabaseReference``); Firebase raises an exception.
    public func reference(withPath path: String) -> DatabaseReference {
        do throws(DatabaseCoreError) {
            return DatabaseReference(database: self, path: try DatabaseReference.validatedPath(path))
        } catch {
            return DatabaseReference(database: self, path: DatabasePath(unvalidated: path),
                                     error: DatabaseReference.invalidPath("reference(withPath:)", error))
        }
    }

    /// The location a full URL names; the URL must be this database's. Another database's URL, or a string that is
    /// not a database URL, gives a reference that carries the error (Firebase raises an exception).
    public func reference(fromURL databaseUrl: String) -> DatabaseReference {
        let parsed: DatabaseURL
        do throws(DatabaseCoreError) { parsed = try DatabaseURL(databaseUrl) } catch {
            return DatabaseReference(database: self, path: .root, error: DatabaseCoreError(
                .invalidPath, "Invalid URL (\(databaseUrl)) passed to reference(fromURL:): \(error.message)"))
        }
        let path = DatabasePath(unvalidated: parsed.path)
        guard parsed.host == url.host, parsed.namespace == url.namespace else {
            return DatabaseReference(database: self, path: path, error: DatabaseCoreError(
                .invalidPath, "Invalid URL (\(databaseUrl)) passed to getReference(). URL was expected to match configured Database URL: \(url)"))
        }
        do throws(DatabaseCoreError) {
            return DatabaseReference(database: self, path: try DatabaseReference.validatedPath(parsed.path))
        } catch {
            return DatabaseReference(database: self, path: path, error: DatabaseReference.invalidPath("reference(fromURL:)", error))
        }
    }

    // MARK: Connection

    public func goOffline() { repo.goOffline() }
    public func goOnline() { repo.goOnline() }

    /// Turns debug logging on or off for every database (off by default): one line per request, answer, server
    /// push and connection change, `[CairnDatabase] <message>`, on standard error.
    public class func setLoggingEnabled(_ enabled: Bool) { DatabaseLog.isEnabled = enabled }

    /// Cancels every write the server has not acknowledged: the local changes are reverted (observers see the
    /// reverting events), then each write's completion gets Firebase's `write_canceled` error (code 3), as do
    /// pending transactions (not committed) and unanswered onDisconnect requests.
    public func purgeOutstandingWrites() { repo.purgeOutstandingWrites() }

    // MARK: Settings

    /// Whether the cache persists to disk (default false): server data, tracked queries and pending writes survive
    /// a restart, in one directory per app and database (``cacheDirectory``; Docs/Database.md).
    public var isPersistenceEnabled: Bool {
        get { lock.withLock { storedPersistence } }
        set { setting("setPersistenceEnabled") { $0.storedPersistence = newValue } }
    }

    /// The cache size threshold in bytes: 10 MiB by default, between 1 MiB and 100 MiB.
    public var persistenceCacheSizeBytes: UInt {
        get { lock.withLock { storedCacheSize } }
        set {
            if newValue < 1024 * 1024 {
                return report("The minimum cache size must be at least 1MB")
            }
            if newValue > 100 * 1024 * 1024 {
                return report("Firebase Database currently don't support cache sizes larger than 100MB")
            }
            setting("setPersistenceCacheSizeBytes") { $0.storedCacheSize = newValue }
        }
    }

    /// The queue every callback runs on (default: the main queue).
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { storedQueue } }
        set { setting("setCallbackQueue") { $0.storedQueue = newValue } }
    }

    /// Returns the token the connection authenticates with (`auth`): a Firebase ID token (a JWT) or a database
    /// secret, or nil to connect unauthenticated. Called before each connection attempt; cache inside the provider.
    public typealias AuthTokenProvider = @Sendable () async throws -> String?

    /// Where the connection gets its auth token (Cairn; Firebase takes it from Firebase Auth, which Cairn does not
    /// have; the same shape as Firestore's `FirestoreSettings.AuthTokenProvider`). `nil` (the default): no `auth`
    /// request, the server's rules see `auth == null`; against an emulator, the token `owner` (full access), as
    /// Firebase's SDKs send (a provider set for an emulator picks the identity instead, like the JS SDK's mock user
    /// token). Set before first use. A token never reaches the log.
    public var authTokenProvider: AuthTokenProvider? {
        get { lock.withLock { storedTokenProvider } }
        set { setting("setAuthTokenProvider") { $0.storedTokenProvider = newValue } }
    }

    /// Connects to the Realtime Database emulator at `host:port` instead of `databaseURL`'s host.
    public func useEmulator(withHost host: String, port: Int) {
        let frozen = lock.withLock { started != nil }
        if frozen {
            return report("Cannot connect to emulator after database initialization. Call useEmulator(host:port:) before creating a database reference or trying to load data.")
        }
        lock.withLock { url.emulatorHost = "\(host):\(port)" }
    }

    /// Cairn: the connection the database uses instead of its WebSocket connection (a scripted one in tests), the
    /// clock, and how long `getData` waits for a connection (Firebase: 3 s); before first use.
    package func useConnection(_ connection: any DatabaseConnection, clock: @escaping @Sendable () -> Date = { Date() },
                               getDataWait: TimeInterval = 3) {
        setting("useConnection") {
            $0.connection = connection
            $0.clock = clock
            $0.getDataWait = getDataWait
        }
    }

    /// Cairn: the cache directory to use instead of the default one (``cacheDirectory``); before first use.
    package func usePersistenceDirectory(_ directory: String) {
        setting("usePersistenceDirectory") { $0.storedCacheDirectory = directory }
    }

    /// The directory of the persistent cache: the one given to ``usePersistenceDirectory(_:)``, or the default
    /// (``defaultCacheDirectory(appName:host:namespace:environment:)``).
    package var cacheDirectory: String {
        let (custom, appName) = lock.withLock { (storedCacheDirectory, app?.name ?? FirebaseApp.defaultAppName) }
        return custom ?? Database.defaultCacheDirectory(appName: appName, host: url.host, namespace: url.namespace,
                                                        environment: ProcessInfo.processInfo.environment)
    }

    private func setting(_ method: String, _ apply: (Database) -> Void) {
        let applied: Bool = lock.withLock {
            guard started == nil else { return false }
            apply(self)
            return true
        }
        if !applied { report("Calls to \(method) must be made before any other usage of FIRDatabase instance.") }
    }

    private func report(_ message: String) {
        FileHandle.standardError.write(Data("[CairnDatabase] \(message)\n".utf8))
    }

    // MARK: The repo

    /// The client, started on first use with the settings frozen.
    package var repo: Repo {
        if let started = lock.withLock({ started }) { return started }
        let directory = isPersistenceEnabled ? cacheDirectory : nil
        return lock.withLock {
            if let started { return started }
            let queue = storedQueue
            let connection = connection ?? PersistentConnection(endpoint: DatabaseEndpoint(url: url), tokenProvider: storedTokenProvider)
            let persistence = directory.flatMap {
                DatabaseCacheOpener.open(at: $0, policy: CachePolicy(maxBytes: UInt64(storedCacheSize)))
            }
            let repo = Repo(connection: connection, persistence: persistence, clock: clock, getDataWait: getDataWait) { events in
                guard !events.isEmpty else { return }
                nonisolated(unsafe) let events = events
                queue.async { for event in events { ObserverRegistration.raise(event) } }
            }
            started = repo
            return repo
        }
    }

    func makeHandle() -> DatabaseHandle {
        lock.withLock {
            defer { nextHandle += 1 }
            return nextHandle
        }
    }

    /// Cairn, for tests: waits until the repo and the callback queue have run everything queued so far.
    package func waitForCallbacks() {
        repo.sync {}
        callbackQueue.sync {}
    }
}
