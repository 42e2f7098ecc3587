/// How the server answered a write (`p`, `m`, `o`, `om`, `oc`): `ok`, or a status such as `permission_denied`
/// with the server's reason.
package enum WriteStatus: Equatable, Sendable {
    case ok
    case failed(status: String, reason: String?)
}

/// How the server answered a get (`g`): the data of the query, or a failure status with the server's reason.
package enum GetResponse: Equatable, Sendable {
    case data(JSONValue)
    case failed(status: String, reason: String?)
}

/// The connection to the database server, as the ``Repo`` uses it (Firebase's `PersistentConnection`). The v5
/// WebSocket connection implements it; tests use a scripted one. The repo calls it on its own queue and the
/// connection reports back through its ``DatabaseConnectionDelegate`` from any thread.
///
/// ```swift
/// connection.delegate = repo
/// connection.listen(query, tag: nil, hash: "") { status in ... }   // the server's data arrives as pushes first
/// connection.put(path, .int(1), hash: nil) { status in ... }
/// ```
package protocol DatabaseConnection: AnyObject {
    var delegate: (any DatabaseConnectionDelegate)? { get set }
    /// Starts connecting (or reconnecting after ``interrupt()``).
    func resume()
    /// Closes the connection and stays offline until ``resume()`` (`goOffline`).
    func interrupt()
    /// Starts a listen (`q`); `hash` is the hash of the cached data (`h`).
    func listen(_ query: QuerySpec, tag: Int?, hash: String, onComplete: @escaping @Sendable (ListenStatus) -> Void)
    /// Stops a listen (`n`).
    func unlisten(_ query: QuerySpec, tag: Int?)
    /// Asks the server for the query's current data once (`g`, `getData`). The repo calls it only while connected;
    /// a connection that drops before the answer fails it (or sends it again after reconnecting).
    func get(_ query: QuerySpec, onComplete: @escaping @Sendable (GetResponse) -> Void)
    /// Overwrites `path` (`p`); `hash` makes it a compare-and-set (transactions).
    func put(_ path: DatabasePath, _ data: JSONValue, hash: String?, onComplete: @escaping @Sendable (WriteStatus) -> Void)
    /// Merges `data` (relative paths to values) into `path` (`m`).
    func merge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void)
    /// Asks the server to overwrite `path` when this client disconnects (`o`).
    func onDisconnectPut(_ path: DatabasePath, _ data: JSONValue, onComplete: @escaping @Sendable (WriteStatus) -> Void)
    /// Asks the server to merge `data` into `path` when this client disconnects (`om`).
    func onDisconnectMerge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void)
    /// Cancels the disconnect operations at and below `path` (`oc`).
    func onDisconnectCancel(_ path: DatabasePath, onComplete: @escaping @Sendable (WriteStatus) -> Void)
    /// Drops the writes and onDisconnect requests not yet sent (`purgeOutstandingWrites`); the repo completes every
    /// unanswered request with `write_canceled` itself and ignores answers that still arrive.
    func purgeOutstandingWrites()
}

/// What a ``DatabaseConnection`` reports: the handshake, the loss of the connection, and the server's pushes.
package protocol DatabaseConnectionDelegate: AnyObject, Sendable {
    /// The handshake arrived; `serverTimeOffset` is the server's time minus the local time, in milliseconds.
    func connectionDidConnect(serverTimeOffset: Double)
    func connectionDidDisconnect()
    /// Server data at `path`: an overwrite, or a merge of relative paths when `isMerge`; `tag` names a filtered
    /// query's listen.
    func connectionDidReceiveData(at path: DatabasePath, _ data: JSONValue, isMerge: Bool, tag: Int?)
}
