import CairnCore
import CairnGRPC
import CairnLogging
import CairnModel
import Foundation
import CairnLocalStore
import SegmentLog

/// Everything needed to start the client core of one ``Firestore`` instance: the database and the frozen
/// settings, resolved (the cache directory is absolute, the emulator host applied, the datastore chosen).
///
/// ```swift
/// let configuration = ClientConfiguration(databaseID: databaseID, settings: settings, environment: environment)
/// let started = try configuration.startClient()   // what the first call on a Firestore instance runs
/// ```
struct ClientConfiguration: Sendable {
    /// The cache a client keeps.
    enum Cache: Sendable, Hashable {
        /// On disk in `directory`, with the garbage collector's target (`-1`: unlimited) and what to do when the
        /// cache is found damaged.
        case persistent(directory: URL, sizeBytes: Int64, onDamage: DamagedCacheHandling)
        /// In memory, with eager collection (`nil`) or LRU collection towards a target.
        case memory(lruSizeBytes: Int64?)
    }

    var databaseInfo: DatabaseInfo
    var cache: Cache
    var dispatchQueue: DispatchQueue
    /// The network: the settings' provider, else gRPC to `databaseInfo.host`.
    var datastoreProvider: DatastoreProvider
    /// The settings' credentials provider, whose user the client follows.
    var credentialsProvider: (any CredentialsProvider)?
    /// The client's worker queue: the settings' (tests), else a new serial queue.
    var workerQueue: AsyncQueue?

    /// The configuration for `settings` on `databaseID`.
    init(
        databaseID: DatabaseID, settings: FirestoreSettings, environment: [String: String],
        appName: String = FirebaseApp.defaultAppName
    ) {
        self.databaseInfo = DatabaseInfo(databaseID: databaseID, host: settings.host, isSSLEnabled: settings.isSSLEnabled)
        self.dispatchQueue = settings.dispatchQueue
        self.credentialsProvider = settings.credentialsProvider
        if let datastoreProvider = settings.datastoreProvider {
            self.datastoreProvider = datastoreProvider
        } else if let credentials = settings.credentialsProvider {
            let tokens: FirestoreRPCConfiguration.AuthTokenProvider = { forceRefresh in
                try await credentials.getToken(forceRefresh: forceRefresh)?.token
            }
            self.datastoreProvider = GRPCDatastore.provider(
                authTokenProvider: tokens, trustRoots: settings.tlsTrustRoots, tokensForEmulator: true)
        } else if let provider = settings.authTokenProvider {
            let tokens: FirestoreRPCConfiguration.AuthTokenProvider = { _ in try await provider() }
            self.datastoreProvider = GRPCDatastore.provider(authTokenProvider: tokens, trustRoots: settings.tlsTrustRoots)
        } else {
            self.datastoreProvider = GRPCDatastore.provider(authTokenProvider: nil, trustRoots: settings.tlsTrustRoots)
        }
        self.workerQueue = settings.workerQueue
        switch settings.cacheSettings {
        case let memory as MemoryCacheSettings:
            cache = .memory(lruSizeBytes: (memory.garbageCollectorSettings as? MemoryLRUGCSettings)?.sizeBytes)
        case let persistent as PersistentCacheSettings:
            cache = .persistent(
                directory: persistent.directory
                    ?? Self.defaultCacheDirectory(appName: appName, databaseID: databaseID, environment: environment),
                sizeBytes: persistent.sizeBytes, onDamage: persistent.onDamage)
        default:
            cache = .memory(lruSizeBytes: nil)
        }
    }

    /// `$XDG_DATA_HOME/cairn/<project>/<database>` for the default app and `…/cairn/@<app>/<project>/<database>`
    /// for any other (so two apps on one project each have a cache, as Firebase keys its cache by app), with
    /// `~/.local/share` when `XDG_DATA_HOME` is unset or relative (the XDG Base Directory rules). The app name is
    /// percent-encoded except letters, digits, `-` and `_`, so no name can climb out of `cairn/`; `@` cannot
    /// begin a project ID, so an app's directory never meets a project's.
    static func defaultCacheDirectory(
        appName: String = FirebaseApp.defaultAppName, databaseID: DatabaseID, environment: [String: String]
    ) -> URL {
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share")
        }
        var directory = base.appendingPathComponent("cairn")
        if appName != FirebaseApp.defaultAppName {
            var allowed = CharacterSet(charactersIn: "-_")
            allowed.formUnion(CharacterSet(charactersIn: "a"..."z"))
            allowed.formUnion(CharacterSet(charactersIn: "A"..."Z"))
            allowed.formUnion(CharacterSet(charactersIn: "0"..."9"))
            let escaped = appName.addingPercentEncoding(withAllowedCharacters: allowed) ?? "app"
            directory = directory.appendingPathComponent("@" + escaped)
        }
        return directory.appendingPathComponent(databaseID.projectID)
            .appendingPathComponent(databaseID.databaseID, isDirectory: true)
    }
}

/// A client the core started for a ``Firestore`` instance, with the instance's claim on its cache directory
/// (`nil` for a memory cache) and its registration with the credentials provider (`nil` without one).
struct StartedClient: Sendable {
    let client: FirestoreClient
    let claim: CacheDirectoryRegistry.Claim?
    let credentials: CredentialsSubscription?
}

extension ClientConfiguration {
    /// Starts the core: the cache settings become a ``FirestoreClient/Persistence`` (persistent cache → `.disk`,
    /// memory cache → `.memory` with eager GC or `.memoryLRU`), the datastore comes from
    /// ``datastoreProvider``, and a persistent cache's directory is claimed (and created 0700 when missing). With a
    /// credentials provider the client starts as the provider's current user and follows its changes.
    func startClient() throws(FirestoreErrorCode) -> StartedClient {
        let queue = workerQueue ?? AsyncQueue(label: "cairn.worker.\(databaseInfo.databaseID.projectID)")
        let persistence: FirestoreClient.Persistence
        let claim: CacheDirectoryRegistry.Claim?
        switch cache {
        case .memory(nil):
            persistence = .memory
            claim = nil
        case .memory(let size?):
            persistence = .memoryLRU(cacheSizeBytes: size)
            claim = nil
        case .persistent(let directory, let size, let onDamage):
            let path = directory.standardizedFileURL.path
            claim = try CacheDirectoryRegistry.claim(path)
            persistence = .disk(
                directory: path, cacheSizeBytes: size < 0 ? LocalStore.cacheSizeUnlimited : size,
                recoversDamage: onDamage == .recover)
        }
        let credentials = credentialsProvider.map(CredentialsSubscription.init(provider:))
        do {
            if let claim {
                // Every missing directory (a missing $XDG_DATA_HOME or ~/.local/share, then
                // cairn/<project>/<database>) is created 0700; an existing one keeps its mode.
                try PosixFileSystem().createDirectory(at: claim.path)
            }
            CairnLogger.firestore.debug(
                "starting a client for \(databaseInfo.databaseID.projectID)/\(databaseInfo.databaseID.databaseID) "
                    + "on host \(databaseInfo.host) (TLS: \(databaseInfo.isSSLEnabled)), cache: \(cache)")
            let user = credentials?.coreUser ?? .unauthenticated
            let client = try FirestoreClient(
                datastore: datastoreProvider(databaseInfo, queue), persistence: persistence, user: user, queue: queue)
            credentials?.attach(client, startedAs: user)
            return StartedClient(client: client, claim: claim, credentials: credentials)
        } catch {
            credentials?.cancel()
            claim?.release()
            if let error = error as? FirestoreErrorCode { throw error }
            throw FirestoreErrorCode(
                .unavailable, "Failed to create the cache directory \(claim?.path ?? ""): \(error)")
        }
    }

    /// Deletes the persistent cache (nothing for a memory cache), once no running instance uses it.
    func clearPersistence() throws(FirestoreErrorCode) {
        guard case .persistent(let directory, _, _) = cache else { return }
        try CacheDirectoryRegistry.clearPersistence(at: directory)
    }
}
