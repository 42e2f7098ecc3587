import CairnDatabaseCore

/// An open REST event stream (`Accept: text/event-stream`): its namespace and path, and where its events go.
struct ServerEventStream: Sendable {
    let namespace: String
    let path: DatabasePath
    let sink: ServerSink
}

extension DatabaseServerCore.State {
    /// Pushes a stored write to every listener it touches, connection by connection in the order they opened:
    /// default listens get the change itself (`d` or `m`), query listens their full tagged result again when it
    /// changed, event streams a `put` or `patch` relative to their path.
    mutating func fanOut(_ write: ServerWrite, namespace: String) {
        let database = self.database
        let current = { (path: DatabasePath) in database.read(namespace: namespace, path: path) }
        for id in sessions.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard var session = sessions[id], session.namespace == namespace else { continue }
            for key in session.listens.keys.sorted(by: Self.listenOrder) {
                guard var listen = session.listens[key] else { continue }
                if listen.isQuery {
                    guard PathUpdate.touches(write, listen.path) else { continue }
                    let result = listen.params.evaluate(on: current(listen.path))
                    if let last = listen.lastSent, last.isEqual(to: result) { continue }
                    listen.lastSent = result
                    session.listens[key] = listen
                    session.sink(.message(ServerMessages.overwrite(listen.path, result, tag: listen.tag)))
                } else if let update = PathUpdate(after: write, listeningAt: listen.path, current: current) {
                    switch update {
                    case .overwrite(let path, let node):
                        session.sink(.message(ServerMessages.overwrite(path, node, tag: nil)))
                    case .merge(let path, let children):
                        session.sink(.message(ServerMessages.merge(path, children)))
                    }
                }
            }
            sessions[id] = session
        }
        for id in streams.keys.sorted() {
            guard let stream = streams[id], stream.namespace == namespace,
                  let update = PathUpdate(after: write, listeningAt: stream.path, current: current) else { continue }
            stream.sink(.message(EventStreamFormat.event(update, relativeTo: stream.path)))
        }
    }

    static func listenOrder(_ a: ServerListen.Key, _ b: ServerListen.Key) -> Bool {
        if a.path.description != b.path.description { return a.path.description < b.path.description }
        return a.query < b.query
    }
}
