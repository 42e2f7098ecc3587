import CairnDatabaseCore

/// The v5 requests a session handles, `{"t":"d","d":{"r":n,"a":action,"b":body}}`:
///
/// | a | body | answer |
/// |---|---|---|
/// | `q` | `{p, h, [q, t]}` | the (tagged) data unless `h` is its hash, then `ok` |
/// | `n` | `{p, [q, t]}` | `ok` |
/// | `g` | `{p, [q]}` | `ok` with the data |
/// | `p` | `{p, d, [h]}` | `ok`, `datastale` when `h` is not the hash of the data at `p` |
/// | `m` | `{p, d: {"rel/path": v}}` | `ok` |
/// | `o`, `om`, `oc` | `{p, d}` | `ok`; kept for the connection's close |
/// | `auth`, `gauth` | `{cred}` | `ok` |
/// | `unauth`, `s`, `appcheck`, `unappeck` | | `ok` |
///
/// A bad request is answered `failed` (or `permission_denied`) with a message; a message that is not a request
/// gets a control error `e`. Neither closes the connection. Messages are read and written with the shared
/// ``WireMessage`` codec.
extension DatabaseServerCore.State {
    mutating func openSession(namespace: String, sink: @escaping ServerSink) -> ServerSessionID {
        let id = ServerSessionID(rawValue: takeID())
        sessions[id] = ServerSessionState(namespace: namespace, sink: sink)
        sink(.message(ServerMessages.hello(timestamp: clock(), host: host, session: "cairn-\(id.rawValue)")))
        return id
    }

    mutating func closeSession(_ id: ServerSessionID) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        heldAcknowledgements.removeAll { $0.0 == id }
        for write in session.onDisconnect {
            _ = try? applyWrite(write, namespace: session.namespace, auth: session.auth, condition: .none)
        }
    }

    /// A write's acknowledgement that waits for its storage sync.
    struct DeferredAcknowledgement {
        let request: Int
        let response: String
        let storage: ServerStorage
    }

    /// Handles one message; returns the acknowledgement of a stored write, to be sent after its sync.
    mutating func receive(_ text: String, from id: ServerSessionID) -> DeferredAcknowledgement? {
        guard let session = sessions[id], text != WireFrames.keepalive else { return nil }
        let message: WireMessage
        do {
            message = try WireMessage(text: text)
        } catch {
            session.sink(.message(ServerMessages.error(error.message)))
            return nil
        }
        switch message {
        case .request(let number, let action, let body):
            do {
                let answer = try handle(action, body.objectValue ?? [:], from: id)
                let response = ServerMessages.response(number, status: WireStatus.ok, data: answer)
                guard action == WireAction.put || action == WireAction.merge else {
                    sessions[id]?.sink(.message(response))
                    return nil
                }
                if let storage { return DeferredAcknowledgement(request: number, response: response, storage: storage) }
                acknowledgeWrite(response, to: id)
            } catch {
                sessions[id]?.sink(.message(ServerMessages.response(number, status: error.wireStatus, data: .string(error.message))))
            }
        case .control:
            break
        case .response, .push:
            session.sink(.message(ServerMessages.error("a client sends requests {\"r\":n,\"a\":action,\"b\":body}, not responses or pushes")))
        }
        return nil
    }

    /// Sends a put's or merge's answer, or keeps it while acknowledgements are held.
    mutating func acknowledgeWrite(_ response: String, to id: ServerSessionID) {
        if holdingAcknowledgements {
            heldAcknowledgements.append((id, response))
        } else {
            sessions[id]?.sink(.message(response))
        }
    }

    /// Runs one request and returns the `d` of its `ok` answer.
    private mutating func handle(_ action: String, _ body: [String: JSONValue], from id: ServerSessionID) throws(ServerError) -> JSONValue {
        guard let session = sessions[id] else { return .null }
        let namespace = session.namespace
        switch action {
        case WireAction.listen:
            try listen(body, session: id)
            return .object([:])
        case WireAction.unlisten:
            let path = try Self.path(body)
            let params = try Self.query(body)
            sessions[id]?.listens[ServerListen.Key(path: path, query: params.identifier)] = nil
            return .object([:])
        case WireAction.get:
            let path = try Self.path(body)
            let params = try Self.query(body)
            try checkAccess([path], write: false, namespace: namespace, auth: session.auth)
            return params.evaluate(on: database.read(namespace: namespace, path: path)).exportJSON()
        case WireAction.put:
            let write = try ServerWrite.decodeSet(path: try Self.path(body), data: body["d"] ?? .null)
            var condition = DatabaseServerCore.WriteCondition.none
            if let hash = body["h"] {
                guard case .string(let text) = hash else { throw ServerError(.invalidRequest, "the hash \"h\" must be a string") }
                condition = .hash(text)
            }
            try applyWrite(write, namespace: namespace, auth: session.auth, condition: condition)
            return .string("")
        case WireAction.merge:
            let write = try ServerWrite.decodeMerge(path: try Self.path(body), data: body["d"] ?? .null)
            try applyWrite(write, namespace: namespace, auth: session.auth, condition: .none)
            return .string("")
        case WireAction.onDisconnectPut, WireAction.onDisconnectMerge, WireAction.onDisconnectCancel:
            try registerOnDisconnect(action, body, session: id)
            return .string("")
        case WireAction.auth, WireAction.googleAuth:
            guard case .string(let token)? = body["cred"] else {
                throw ServerError(.invalidRequest, "\(action) needs a token \"cred\"")
            }
            changeAuth(of: id, to: ServerAuth(token: token))
            return .object([:])
        case WireAction.unauth:
            changeAuth(of: id, to: .anonymous)
            return .string("")
        case WireAction.stats, "appcheck", "unappeck":
            return .string("")
        default:
            throw ServerError(.invalidRequest, "unknown action \"\(action.prefix(32))\"")
        }
    }

    private mutating func listen(_ body: [String: JSONValue], session id: ServerSessionID) throws(ServerError) {
        guard let session = sessions[id] else { return }
        let path = try Self.path(body)
        let params = try Self.query(body)
        try checkAccess([path], write: false, namespace: session.namespace, auth: session.auth)
        let key = ServerListen.Key(path: path, query: params.identifier)
        if session.listens[key] == nil, session.listens.count >= limits.listensPerConnection {
            throw ServerError(.invalidRequest, "a connection may hold at most \(limits.listensPerConnection) listens")
        }
        let wireQuery = params.isDefault ? nil : body["q"]
        var listen = ServerListen(path: path, params: params, wireQuery: wireQuery, tag: body["t"], lastSent: nil)
        let result = params.evaluate(on: database.read(namespace: session.namespace, path: path))
        if listen.isQuery { listen.lastSent = result }
        sessions[id]?.listens[key] = listen
        if case .string(let hash)? = body["h"], hash == result.hash, !hash.isEmpty { return }
        session.sink(.message(ServerMessages.overwrite(path, result, tag: listen.tag)))
    }

    private mutating func registerOnDisconnect(_ action: String, _ body: [String: JSONValue], session id: ServerSessionID) throws(ServerError) {
        guard let session = sessions[id] else { return }
        let path = try Self.path(body)
        var operations = session.onDisconnect
        switch action {
        case WireAction.onDisconnectCancel:
            try checkAccess([path], write: true, namespace: session.namespace, auth: session.auth)
            operations = Self.removing(path, from: operations)
        case WireAction.onDisconnectPut:
            let write = try ServerWrite.decodeSet(path: path, data: body["d"] ?? .null)
            try checkAccess(write.changedPaths, write: true, namespace: session.namespace, auth: session.auth)
            operations = Self.removing(path, from: operations) + [write]
        default:
            let write = try ServerWrite.decodeMerge(path: path, data: body["d"] ?? .null)
            try checkAccess(write.changedPaths, write: true, namespace: session.namespace, auth: session.auth)
            for changed in write.changedPaths { operations = Self.removing(changed, from: operations) }
            operations.append(write)
        }
        if operations.count > limits.onDisconnectPerConnection {
            throw ServerError(.invalidRequest, "a connection may hold at most \(limits.onDisconnectPerConnection) onDisconnect operations")
        }
        sessions[id]?.onDisconnect = operations
    }

    /// The operations without what they would write at or below `path`.
    private static func removing(_ path: DatabasePath, from operations: [ServerWrite]) -> [ServerWrite] {
        operations.compactMap { operation in
            switch operation {
            case .set(let target, _):
                return path.contains(target) ? nil : operation
            case .merge(let target, let children):
                let kept = children.filter { !path.contains(target.child($0.0)) }
                return kept.isEmpty ? nil : .merge(target, kept)
            }
        }
    }

    private static func path(_ body: [String: JSONValue]) throws(ServerError) -> DatabasePath {
        guard case .string(let text)? = body["p"] else {
            throw ServerError(.invalidRequest, "the request needs a path \"p\"")
        }
        return try ServerWrite.parsePath(text)
    }

    private static func query(_ body: [String: JSONValue]) throws(ServerError) -> QueryParams {
        switch body["q"] {
        case nil, .null?: return QueryParams()
        case .object(let members)? where members.isEmpty: return QueryParams()
        case .object(let members)?:
            do {
                return try QueryParams(wireObject: members)
            } catch {
                throw ServerError(.invalidQuery, error.message)
            }
        case let other?:
            throw ServerError(.invalidQuery, "the query \"q\" must be an object, got \(ServerWrite.kind(of: other))")
        }
    }
}
