import CairnDatabaseCore
import Foundation
import Logging
import Synchronization

/// The local Realtime Database server without a transport: namespaces of data (``ServerDatabase``), WebSocket
/// sessions that take v5 request messages and emit responses and pushes, REST reads, writes and event streams,
/// and the test hooks (drop a connection, hold acknowledgements, refuse a path). Every request runs to the end
/// under one lock, so requests apply in the order they arrive and every change reaches every matching listener
/// of every connection before the next request runs. Outputs go to each connection's ``ServerSink``.
///
/// With storage (`--data DIR`) a write's records are appended under the lock, and the write is acknowledged
/// only after a sync that covers them, made after the lock is released (``ServerStorage``): no request waits
/// for another's `fdatasync`, and overlapping syncs are shared (group commit).
///
/// ```swift
/// let core = DatabaseServerCore(host: "127.0.0.1:9000")
/// let id = core.openSession(namespace: "demo") { output in print(output) }   // the hello
/// core.receive(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/users","h":""}}}"#, from: id)
/// core.close(id)                                                            // runs its onDisconnects
/// ```
package final class DatabaseServerCore: Sendable {
    /// Limits that bound the memory one connection can hold.
    package struct Limits: Sendable {
        package var listensPerConnection = 10_000
        package var onDisconnectPerConnection = 10_000
        package init() {}
    }

    let state: Mutex<State>
    /// Failures the core cannot answer to anyone (an onDisconnect write that could not be made durable).
    let logger: Logger

    /// - Parameters:
    ///   - host: the `host:port` the hello names (clients dial it next time).
    ///   - clock: milliseconds since 1970 for `.sv` timestamps and the hello (injectable for tests).
    package init(
        host: String, limits: Limits = Limits(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        logger: Logger = Logger(label: "cairn.database-server")
    ) {
        state = Mutex(State(host: host, limits: limits, clock: clock))
        self.logger = logger
    }

    /// Replaces the data with what `storage` holds and records every later write there (acknowledged once durable).
    package func restore(_ database: ServerDatabase, storage: ServerStorage?) {
        state.withLock { state in
            state.database = database
            state.storage = storage
        }
    }

    /// Stops storing writes and returns the storage that was in use.
    package func detachStorage() -> ServerStorage? {
        state.withLock { state in
            defer { state.storage = nil }
            return state.storage
        }
    }

    /// Changes the host the hello names (the transport knows its port only once bound).
    package func setHost(_ host: String) {
        state.withLock { $0.host = host }
    }

    // MARK: Sessions

    /// A new WebSocket session in `namespace`; the hello is sent to `sink` at once.
    package func openSession(namespace: String, sink: @escaping ServerSink) -> ServerSessionID {
        state.withLock { $0.openSession(namespace: namespace, sink: sink) }
    }

    /// One whole v5 message from the session (frames already reassembled); the keepalive `0` is ignored. A
    /// stored write's acknowledgement is sent once the write is durable: this call waits for that sync (the
    /// session's next message waits with it, so its answers stay in order), without holding the core's lock.
    package func receive(_ text: String, from id: ServerSessionID) {
        guard let deferred = state.withLock({ $0.receive(text, from: id) }) else { return }
        var response = deferred.response
        do throws(ServerError) {
            try Self.makeDurable(deferred.storage)
        } catch {
            response = ServerMessages.response(deferred.request, status: error.wireStatus, data: .string(error.message))
        }
        state.withLock { $0.acknowledgeWrite(response, to: id) }
    }

    /// The session is gone (closed, dropped or timed out): its onDisconnect operations run, its listens end.
    /// Their writes are made durable before this returns.
    package func close(_ id: ServerSessionID) {
        let storage = state.withLock { state in
            state.closeSession(id)
            return state.storage
        }
        do throws(ServerError) {
            try Self.makeDurable(storage)
        } catch {
            logger.error("\(id) closed: its onDisconnect writes were applied but may not be durable: \(error.message)")
        }
    }

    package var sessionIDs: [ServerSessionID] {
        state.withLock { $0.sessions.keys.sorted { $0.rawValue < $1.rawValue } }
    }

    // MARK: Data

    package func read(namespace: String, path: DatabasePath) -> Node {
        state.withLock { $0.database.read(namespace: namespace, path: path) }
    }

    /// Applies a write as an administrator (no refusal applies) and pushes it to every listener.
    @discardableResult
    package func write(_ write: ServerWrite, namespace: String) throws(ServerError) -> ServerWrite {
        let (stored, storage) = try state.withLock { state throws(ServerError) in
            (try state.applyWrite(write, namespace: namespace, auth: ServerAuth(token: "owner"), condition: .none), state.storage)
        }
        try Self.makeDurable(storage)
        return stored
    }

    /// Syncs `storage` (nil: nothing to do).
    ///
    /// - Throws: ``ServerError`` `unavailable` when the sync failed: the write was applied in memory and sent to
    ///   listeners but may be lost if the server stops; the data directory accepts no write after it.
    static func makeDurable(_ storage: ServerStorage?) throws(ServerError) {
        guard let storage else { return }
        do {
            try storage.sync()
        } catch {
            throw ServerError(.unavailable, "the write was applied but could not be made durable (the data directory failed: \(error)); restart the server to use the directory again")
        }
    }

    // MARK: Test hooks

    /// Closes the connection (the transport closes the socket, then ``close(_:)`` runs its onDisconnects).
    package func drop(_ id: ServerSessionID) {
        state.withLock { $0.sessions[id]?.sink(.close) }
    }

    /// While held, acknowledgements of writes (`p`, `m`) wait; the writes are applied and pushed at once.
    /// Releasing sends the held acknowledgements in order.
    package func holdAcknowledgements(_ hold: Bool) {
        state.withLock { $0.holdAcknowledgements(hold) }
    }

    /// Refuses reads and writes at, above or below `path` for every identity but the administrator
    /// (`permission_denied`), and revokes the listens there with a `c` push.
    package func refuse(_ path: DatabasePath, namespace: String) {
        state.withLock { $0.refuse(path, namespace: namespace) }
    }

    /// Holds every identity but the administrator to `rules` (nil: everything allowed). Listens already running
    /// that the new rules do not allow are revoked with a `c` push.
    package func setRules(_ rules: ServerRules?) {
        state.withLock { state in
            state.rules = rules
            state.revokeUnreadableListens(of: state.orderedSessionIDs)
        }
    }

    /// Lifts every refusal.
    package func allowAll() {
        state.withLock { $0.refusals.removeAll() }
    }
}
