// The connection of the `database` suite's databases: one that never connects, so that the suite measures the
// cache alone and never reaches for the network (the default connection would dial the configured host).

import CairnDatabaseCore

/// A `DatabaseConnection` that stays offline: requests wait forever, as they would with no network.
final class OfflineDatabaseConnection: DatabaseConnection {
    weak var delegate: (any DatabaseConnectionDelegate)?

    func resume() {}
    func interrupt() {}
    func listen(_ query: QuerySpec, tag: Int?, hash: String, onComplete: @escaping @Sendable (ListenStatus) -> Void) {}
    func unlisten(_ query: QuerySpec, tag: Int?) {}
    func get(_ query: QuerySpec, onComplete: @escaping @Sendable (GetResponse) -> Void) {}
    func put(_ path: DatabasePath, _ data: JSONValue, hash: String?, onComplete: @escaping @Sendable (WriteStatus) -> Void) {}
    func merge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void) {}
    func onDisconnectPut(_ path: DatabasePath, _ data: JSONValue, onComplete: @escaping @Sendable (WriteStatus) -> Void) {}
    func onDisconnectMerge(
        _ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void
    ) {}
    func onDisconnectCancel(_ path: DatabasePath, onComplete: @escaping @Sendable (WriteStatus) -> Void) {}
    func purgeOutstandingWrites() {}
}
