import CairnModel
import Foundation
import Synchronization

/// Everything the core needs to start a client for one ``Firestore`` instance: the database and the frozen
/// settings, resolved (the cache directory is absolute, the emulator host applied).
///
/// ```swift
/// ClientConfiguration(databaseID: DatabaseID(projectID: "demo"), host: "localhost:8080", isSSLEnabled: false,
///                     cache: .memory(lruSizeBytes: nil), dispatchQueue: queue)
/// ```
package struct ClientConfiguration: Sendable {
    /// The cache a client keeps.
    enum Cache: Sendable, Hashable {
        /// On disk in `directory`, with the garbage collector's target (`-1`: unlimited) and what to do when the
        /// cache is found damaged.
        case persistent(directory: URL, sizeBytes: Int64, onDamage: DamagedCacheHandling)
        /// In memory, with eager collection (`nil`) or LRU collection towards a target.
        case memory(lruSizeBytes: Int64?)
    }

    package var databaseID: DatabaseID
    package var host: String
    package var isSSLEnabled: Bool
    var cache: Cache
    var dispatchQueue: DispatchQueue

    /// The configuration for `settings` on `databaseID`.
    init(databaseID: DatabaseID, settings: FirestoreSettings, environment: [String: String]) {
        self.databaseID = databaseID
        self.host = settings.host
        self.isSSLEnabled = settings.isSSLEnabled
        self.dispatchQueue = settings.dispatchQueue
        switch settings.cacheSettings {
        case let memory as MemoryCacheSettings:
            cache = .memory(lruSizeBytes: (memory.garbageCollectorSettings as? MemoryLRUGCSettings)?.sizeBytes)
        case let persistent as PersistentCacheSettings:
            cache = .persistent(
                directory: persistent.directory
                    ?? Self.defaultCacheDirectory(databaseID: databaseID, environment: environment),
                sizeBytes: persistent.sizeBytes, onDamage: persistent.onDamage)
        default:
            cache = .memory(lruSizeBytes: nil)
        }
    }

    /// `$XDG_DATA_HOME/cairn/<project>/<database>`, with `~/.local/share` when `XDG_DATA_HOME` is unset or
    /// relative (the XDG Base Directory rules).
    static func defaultCacheDirectory(databaseID: DatabaseID, environment: [String: String]) -> URL {
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share")
        }
        return base.appendingPathComponent("cairn").appendingPathComponent(databaseID.projectID)
            .appendingPathComponent(databaseID.databaseID, isDirectory: true)
    }
}

/// How a ``Firestore`` instance gets its client core: the real core (``CoreClientFactory``) unless another
/// factory is installed (tests install fakes).
///
/// ```swift
/// ClientBridgeFactory.install { configuration throws(FirestoreErrorCode) in
///     FakeBridge(configuration: configuration)
/// }
/// ```
enum ClientBridgeFactory {
    typealias Make = @Sendable (ClientConfiguration) throws(FirestoreErrorCode) -> any ClientBridge

    typealias Clear = @Sendable (ClientConfiguration) throws(FirestoreErrorCode) -> Void

    private static let current = Mutex<Make?>(nil)
    private static let clear = Mutex<Clear?>(nil)

    /// Makes every Firestore instance started from now on use `make`.
    static func install(_ make: @escaping Make) {
        current.withLock { $0 = make }
    }

    /// Makes `clearPersistence()` use `clear` (the core may know more than the directory to delete).
    static func installClearPersistence(_ clear: @escaping Clear) {
        self.clear.withLock { $0 = clear }
    }

    /// Deletes the persistent cache of `configuration` (nothing for a memory cache).
    static func clearPersistence(_ configuration: ClientConfiguration) throws(FirestoreErrorCode) {
        guard let clear = self.clear.withLock({ $0 }) else {
            try CoreClientFactory.clearPersistence(configuration)
            return
        }
        try clear(configuration)
    }

    /// A client for `configuration`, or the error every call on the instance then reports.
    static func makeClient(_ configuration: ClientConfiguration) throws(FirestoreErrorCode) -> any ClientBridge {
        guard let make = current.withLock({ $0 }) else {
            return try CoreClientFactory.makeClient(configuration)
        }
        return try make(configuration)
    }
}
