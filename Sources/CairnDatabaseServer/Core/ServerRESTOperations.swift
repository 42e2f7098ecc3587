import CairnDatabaseCore

/// The core's side of the REST API: reads with query parameters, writes with an optional ETag condition, push
/// ids for POST, and event streams. The transport (``RESTRequestHandler``) parses HTTP into these calls.
extension DatabaseServerCore {
    /// The data at `path` (filtered when `params` selects), after an access check.
    package func restRead(namespace: String, path: DatabasePath, params: QueryParams, auth: ServerAuth) throws(ServerError) -> Node {
        try state.withLock { state throws(ServerError) in
            try state.checkAccess([path], write: false, namespace: namespace, auth: auth)
            return params.evaluate(on: state.database.read(namespace: namespace, path: path))
        }
    }

    /// Applies a write for a REST client and returns the data now at the write's path, once the write is durable.
    ///
    /// - Throws: ``ServerError``: `permissionDenied`, `dataStale` (an `if-match` ETag that is not current), or
    ///   bad data.
    package func restWrite(_ write: ServerWrite, namespace: String, auth: ServerAuth, condition: WriteCondition) throws(ServerError) -> Node {
        let (node, storage) = try state.withLock { state throws(ServerError) in
            try state.applyWrite(write, namespace: namespace, auth: auth, condition: condition)
            return (state.database.read(namespace: namespace, path: write.path), state.storage)
        }
        try Self.makeDurable(storage)
        return node
    }

    /// POST: stores `data` under a new push id below `path` and returns the id.
    package func restPush(_ data: JSONValue, namespace: String, path: DatabasePath, auth: ServerAuth) throws(ServerError) -> String {
        let (name, storage) = try state.withLock { state throws(ServerError) in
            let name = state.pushIDs.next(timestamp: state.clock())
            let write = try ServerWrite.decodeSet(path: path.child(name), data: data)
            try state.applyWrite(write, namespace: namespace, auth: auth, condition: .none)
            return (name, state.storage)
        }
        try Self.makeDurable(storage)
        return name
    }

    /// Opens an event stream at `path`: its first event, a `put` of all the data there, goes to `sink` at once.
    package func openStream(namespace: String, path: DatabasePath, auth: ServerAuth, sink: @escaping ServerSink) throws(ServerError) -> Int {
        try state.withLock { state throws(ServerError) in
            try state.checkAccess([path], write: false, namespace: namespace, auth: auth)
            let id = state.takeID()
            state.streams[id] = ServerEventStream(namespace: namespace, path: path, sink: sink)
            sink(.message(EventStreamFormat.put(.root, state.database.read(namespace: namespace, path: path))))
            return id
        }
    }

    package func closeStream(_ id: Int) {
        state.withLock { _ = $0.streams.removeValue(forKey: id) }
    }
}
