import CairnModel
import Synchronization

/// Chooses the ``Datastore`` (the network) of each new client. Until a transport is installed every client gets
/// an ``UnreachableDatastore``, and works offline; the gRPC transport installs itself here.
///
/// ```swift
/// DatastoreFactory.install { configuration, queue in
///     GRPCDatastore(databaseID: configuration.databaseID, host: configuration.host,
///                   isSSLEnabled: configuration.isSSLEnabled, queue: queue)
/// }
/// ```
enum DatastoreFactory {
    /// Makes the datastore of a client for `configuration`; its callbacks must run on `queue`.
    typealias Make = @Sendable (ClientConfiguration, AsyncQueue) -> any Datastore

    private static let current = Mutex<Make?>(nil)

    /// Makes every client started from now on use `make` for its network.
    static func install(_ make: @escaping Make) {
        current.withLock { $0 = make }
    }

    /// Goes back to the default: no transport, an ``UnreachableDatastore``.
    static func uninstall() {
        current.withLock { $0 = nil }
    }

    /// The datastore for a new client.
    static func makeDatastore(_ configuration: ClientConfiguration, queue: AsyncQueue) -> any Datastore {
        if let make = current.withLock({ $0 }) { return make(configuration, queue) }
        return UnreachableDatastore(databaseID: configuration.databaseID, queue: queue)
    }
}
