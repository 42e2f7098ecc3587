import CairnCore
import CairnGRPC
import Dispatch
import Foundation

/// How a ``Firestore`` instance connects and caches. Set it before the first other call on the instance: from
/// then on the settings are frozen.
///
/// ```swift
/// let settings = FirestoreSettings()
/// settings.cacheSettings = PersistentCacheSettings(sizeBytes: 200 * 1024 * 1024 as NSNumber)
/// settings.dispatchQueue = DispatchQueue(label: "app.firestore.callbacks")
/// db.settings = settings
/// ```
///
/// Like Firebase's, this is a class that ``Firestore/settings`` copies on assignment, so changing a settings
/// object after assigning it changes nothing until it is assigned again.
public final class FirestoreSettings: @unchecked Sendable, CustomStringConvertible {
    /// The production host.
    public static let defaultHost = "firestore.googleapis.com"

    /// The host (and optional `:port`) to connect to.
    public var host: String
    /// Whether to use TLS.
    public var isSSLEnabled: Bool
    /// The queue on which every completion handler and listener runs. Firebase's default is the main queue; on
    /// Linux, where few programs run the main queue, Cairn's default is a serial queue of its own.
    public var dispatchQueue: DispatchQueue
    /// Deprecated in Firebase in favour of ``cacheSettings``: `false` selects a memory cache.
    public var isPersistenceEnabled: Bool {
        didSet { usesLegacyCacheFields = true }
    }
    /// Deprecated in Firebase in favour of ``cacheSettings``: the persistent cache's size target.
    public var cacheSizeBytes: Int64 {
        didSet { usesLegacyCacheFields = true }
    }
    /// The cache: ``PersistentCacheSettings`` (default) or ``MemoryCacheSettings``.
    public var cacheSettings: any LocalCacheSettings {
        get { explicitCacheSettings ?? legacyCacheSettings }
        set { explicitCacheSettings = newValue }
    }

    /// Returns the bearer token (an OAuth2 access token or a Firebase ID token, without the `Bearer ` prefix)
    /// for the next call to Cloud Firestore over TLS, or nil to send none. Called before every RPC and stream
    /// start; cache inside the provider. Unused for the emulator (no TLS), which sees the `owner` token.
    public typealias AuthTokenProvider = @Sendable () async throws -> String?

    /// Where the instance gets its bearer tokens for Cloud Firestore (Cairn; Firebase takes them from Firebase
    /// Auth, which Cairn does not have). `nil`: no `authorization` header. The simple form, for one identity:
    /// no user, no forced refresh; ``credentialsProvider`` takes precedence when both are set.
    public var authTokenProvider: AuthTokenProvider?

    /// The certificate authorities a TLS connection trusts (Cairn; Firebase always uses the platform's): the
    /// system's (the default), or a private CA's PEM, e.g. for a TLS-terminating proxy. See ``TLSTrustRoots``.
    public var tlsTrustRoots: TLSTrustRoots = .system

    /// Where the instance gets its bearer tokens and its signed-in user, with a change listener (Cairn; Firebase
    /// takes them from Firebase Auth): see ``CredentialsProvider``. Its tokens go to the emulator too. `nil`: the
    /// instance uses ``authTokenProvider``, and its user is unauthenticated.
    public var credentialsProvider: (any CredentialsProvider)?

    /// The network of the instance's client: `nil` (the default) is gRPC to ``host``, with TLS as
    /// ``isSSLEnabled`` says. Tests, the spec harness and offline-only programs pass their own datastore.
    package var datastoreProvider: DatastoreProvider?

    /// The worker queue of the instance's client core: `nil` (the default) is a new serial queue. Tests pass an
    /// `AsyncQueue.manual()` and drain it themselves, so that they wait on no real time. One queue serves one
    /// instance.
    package var workerQueue: AsyncQueue?

    private var explicitCacheSettings: (any LocalCacheSettings)?
    private var usesLegacyCacheFields = false

    /// Default settings; with `FIRESTORE_EMULATOR_HOST` set in the environment (as `host:port`), the host is the
    /// emulator's and TLS is off, as in Firebase.
    public convenience init() {
        self.init(environment: ProcessInfo.processInfo.environment)
    }

    init(environment: [String: String]) {
        if let emulator = environment["FIRESTORE_EMULATOR_HOST"], !emulator.isEmpty {
            host = emulator
            isSSLEnabled = false
        } else {
            host = FirestoreSettings.defaultHost
            isSSLEnabled = true
        }
        #if canImport(Darwin)
        dispatchQueue = .main
        #else
        dispatchQueue = FirestoreSettings.sharedCallbackQueue
        #endif
        isPersistenceEnabled = true
        cacheSizeBytes = defaultCacheSizeBytes
    }

    /// A copy (Firebase's `NSCopying`).
    public func copy() -> FirestoreSettings {
        let copy = FirestoreSettings(environment: [:])
        copy.host = host
        copy.isSSLEnabled = isSSLEnabled
        copy.dispatchQueue = dispatchQueue
        copy.isPersistenceEnabled = isPersistenceEnabled
        copy.cacheSizeBytes = cacheSizeBytes
        copy.usesLegacyCacheFields = usesLegacyCacheFields
        copy.explicitCacheSettings = explicitCacheSettings
        copy.authTokenProvider = authTokenProvider
        copy.tlsTrustRoots = tlsTrustRoots
        copy.credentialsProvider = credentialsProvider
        copy.datastoreProvider = datastoreProvider
        copy.workerQueue = workerQueue
        return copy
    }

    public var description: String {
        "FirestoreSettings(host: \(host), ssl: \(isSSLEnabled), trust roots: \(tlsTrustRoots), cache: \(cacheSettings))"
    }

    /// The cache the legacy fields describe.
    private var legacyCacheSettings: any LocalCacheSettings {
        isPersistenceEnabled
            ? PersistentCacheSettings(sizeBytes: NSNumber(value: cacheSizeBytes))
            : MemoryCacheSettings()
    }

    /// Firebase's checks when an instance starts with these settings: no mix of ``cacheSettings`` with the
    /// legacy fields, and cache sizes of at least 1 MiB.
    func validate() throws(FirestoreErrorCode) {
        if explicitCacheSettings != nil && usesLegacyCacheFields {
            throw FirestoreErrorCode(
                .invalidArgument,
                "cacheSettings cannot be mixed with the legacy cache API (isPersistenceEnabled, cacheSizeBytes); "
                    + "set cacheSettings only.")
        }
        switch cacheSettings {
        case let persistent as PersistentCacheSettings:
            try validateCacheSize(persistent.sizeBytes)
        case let memory as MemoryCacheSettings:
            if let lru = memory.garbageCollectorSettings as? MemoryLRUGCSettings {
                try validateCacheSize(lru.sizeBytes)
            }
        default:
            throw FirestoreErrorCode(
                .invalidArgument,
                "Unsupported cache settings \(type(of: cacheSettings)); use PersistentCacheSettings or "
                    + "MemoryCacheSettings.")
        }
    }

    /// Cairn's default callback queue where the main queue is not run (Linux).
    static let sharedCallbackQueue = DispatchQueue(label: "cairn.firestore.callbacks")
}
