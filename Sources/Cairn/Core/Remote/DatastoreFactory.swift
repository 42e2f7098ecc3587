import CairnModel
import Synchronization

/// Chooses the ``Datastore`` (the network) of each new client. Until a transport is installed every client gets
/// an ``UnreachableDatastore``, and works offline; the gRPC transport installs itself here.
///
/// ```swift
/// // What CairnGRPC's `GRPCTransport.install()` does:
/// DatastoreFactory.install { configuration, queue in
///     GRPCTransport.makeDatastore(configuration, queue: queue, authTokenProvider: nil)
/// }
/// ```
package enum DatastoreFactory {
    /// Makes the datastore of a client for `configuration`; its callbacks must run on `queue`.
    package typealias Make = @Sendable (ClientConfiguration, AsyncQueue) -> any Datastore

    private static let current = Mutex<Make?>(nil)
    private static let routes = Mutex<[String: Make]>([:])

    /// Makes every client started from now on use `make` for its network.
    package static func install(_ make: @escaping Make) {
        current.withLock { $0 = make }
    }

    /// Goes back to the default: no transport, an ``UnreachableDatastore``.
    package static func uninstall() {
        current.withLock { $0 = nil }
    }

    /// Makes the clients of project `projectID` use `make`, whatever is installed for everyone: tests that run in
    /// parallel in one process route their own projects without replacing each other's transport.
    package static func install(forProject projectID: String, _ make: @escaping Make) {
        routes.withLock { $0[projectID] = make }
    }

    /// Removes the route of `projectID` installed with ``install(forProject:_:)``.
    package static func uninstall(forProject projectID: String) {
        _ = routes.withLock { $0.removeValue(forKey: projectID) }
    }

    /// The datastore for a new client.
    static func makeDatastore(_ configuration: ClientConfiguration, queue: AsyncQueue) -> any Datastore {
        if let route = routes.withLock({ $0[configuration.databaseID.projectID] }) { return route(configuration, queue) }
        if let make = current.withLock({ $0 }) { return make(configuration, queue) }
        return UnreachableDatastore(databaseID: configuration.databaseID, queue: queue)
    }
}
