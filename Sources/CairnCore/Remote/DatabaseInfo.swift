import CairnModel

/// Where a client's datastore connects (Firebase's `core::DatabaseInfo`): the database, and the host and TLS
/// flag of the instance's settings (`useEmulator(withHost:port:)` and `FIRESTORE_EMULATOR_HOST` have already
/// set them).
///
/// ```swift
/// let info = DatabaseInfo(databaseID: DatabaseID(projectID: "demo"), host: "127.0.0.1:8080", isSSLEnabled: false)
/// ```
package struct DatabaseInfo: Sendable, Hashable {
    package var databaseID: DatabaseID
    /// `name`, `name:port` or `[v6-address]:port`.
    package var host: String
    package var isSSLEnabled: Bool

    package init(databaseID: DatabaseID, host: String, isSSLEnabled: Bool) {
        self.databaseID = databaseID
        self.host = host
        self.isSSLEnabled = isSSLEnabled
    }
}

/// Makes the ``Datastore`` of a new client; its callbacks must run on the given queue (the client's worker
/// queue). `Firestore` uses the gRPC datastore unless its settings carry another provider.
///
/// ```swift
/// let offline: DatastoreProvider = { info, queue in UnreachableDatastore(databaseID: info.databaseID, queue: queue) }
/// ```
package typealias DatastoreProvider = @Sendable (DatabaseInfo, AsyncQueue) -> any Datastore
