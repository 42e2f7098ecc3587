import CairnDatabaseCore

/// Test hooks for the messages Firebase's server sends unasked, so that a client's handling of each is provable
/// through a real socket:
///
/// | hook | message | what a client does |
/// |---|---|---|
/// | ``reset(_:toHost:)`` | control `r` with a host | reconnects there at once and dials it from then on |
/// | ``shutdown(_:reason:)`` | control `s` with a reason | closes, reports the reason, never reconnects |
/// | ``revokeAuth(_:status:reason:)`` | push `ac` `{s, d}` | drops its token, reconnects and authenticates anew |
/// | ``pushRangeMerge(_:at:after:through:)`` | push `rm` `{p, d: [{s, e, m}], [t]}` | replaces that key range |
///
/// ``applyWithoutPushes(_:namespace:)`` changes data behind the listeners' backs (what a range merge repairs).
///
/// ```swift
/// let id = server.core.sessionIDs[0]
/// server.core.reset(id, toHost: "127.0.0.1:\(otherPort)")
/// ```
extension DatabaseServerCore {
    /// Sends the connection a reset (`r`) naming `host` (`host:port`) to dial instead.
    package func reset(_ id: ServerSessionID, toHost host: String) {
        state.withLock { state in
            state.sessions[id]?.sink(.message(WireMessage.control(type: WireControl.reset, payload: .string(host)).text))
        }
    }

    /// Sends the connection a shutdown (`s`) with `reason`; the client closes the socket.
    package func shutdown(_ id: ServerSessionID, reason: String) {
        state.withLock { state in
            state.sessions[id]?.sink(.message(WireMessage.control(type: WireControl.shutdown, payload: .string(reason)).text))
        }
    }

    /// Revokes the connection's credential as Firebase does when a token expires or is revoked: the connection
    /// is anonymous from now on, its listens that the rules no longer allow are revoked (`c`), and it gets an
    /// auth-revoked push (`ac`, `{"s": status, "d": reason}`).
    package func revokeAuth(_ id: ServerSessionID, status: String = "expired_token", reason: String) {
        state.withLock { state in
            guard state.sessions[id] != nil else { return }
            state.changeAuth(of: id, to: .anonymous)
            let body = JSONValue.object(["s": .string(status), "d": .string(reason)])
            state.sessions[id]?.sink(.message(WireMessage.push(action: WirePush.authRevoked, body: body).text))
        }
    }

    /// Sends the connection a range merge (`rm`) for its listen at `path`: the server's children there whose keys
    /// lie after `start` (exclusive) and up to `end` (inclusive) in key order; no bounds sends all the data at
    /// `path`. The push carries the listen's tag when it is a tagged query.
    ///
    /// - Returns: false when the connection has no listen at `path` (nothing is sent).
    @discardableResult
    package func pushRangeMerge(_ id: ServerSessionID, at path: DatabasePath, after start: String? = nil, through end: String? = nil) -> Bool {
        state.withLock { state in
            guard let session = state.sessions[id],
                  let listen = session.listens.values.sorted(by: { $0.tag == nil && $1.tag != nil }).first(where: { $0.path == path })
            else { return false }
            let current = state.database.read(namespace: session.namespace, path: path)
            var range: [String: JSONValue] = [:]
            if let start { range["s"] = .string(start) }
            if let end { range["e"] = .string(end) }
            if start == nil && end == nil {
                range["m"] = current.exportJSON()
            } else {
                let inside = current.childKeys.filter { key in
                    (start.map { KeyOrder.compare($0, key) < 0 } ?? true) && (end.map { KeyOrder.compare(key, $0) <= 0 } ?? true)
                }
                range["m"] = Node(children: inside.map { NamedNode($0, current.immediateChild($0)) }).exportJSON()
            }
            var body: [String: JSONValue] = ["p": .string(ServerMessages.wirePath(path)), "d": .array([.object(range)])]
            if let tag = listen.tag { body["t"] = tag }
            session.sink(.message(WireMessage.push(action: WirePush.rangeMerge, body: .object(body)).text))
            return true
        }
    }

    /// Applies a write as an administrator without pushing it to any listener (nor storing it): listeners' data
    /// is then out of date, as a client's cache is when it listens again with an old hash.
    package func applyWithoutPushes(_ write: ServerWrite, namespace: String) throws(ServerError) {
        try state.withLock { state throws(ServerError) in
            try state.database.apply(write, namespace: namespace, timestamp: state.clock())
        }
    }

    /// The identity the connection is authenticated as, nil when it is not open.
    package func auth(of id: ServerSessionID) -> ServerAuth? {
        state.withLock { $0.sessions[id]?.auth }
    }

    /// The paths the connection listens at, in path order (one per listen).
    package func listenPaths(of id: ServerSessionID) -> [DatabasePath] {
        state.withLock { state in
            (state.sessions[id]?.listens.keys.sorted(by: DatabaseServerCore.State.listenOrder) ?? []).map(\.path)
        }
    }
}
