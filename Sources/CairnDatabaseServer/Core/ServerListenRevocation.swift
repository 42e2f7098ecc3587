import CairnDatabaseCore

/// Listens stay allowed only while their connection may read them: whenever what a connection may read changes
/// (its credential: `auth` with another token, `unauth`, a revoked token; the rules; a refused path), each of
/// its listens is checked again and those no longer readable are revoked with a `c` push, as Firebase's server
/// revokes them (the client cancels them with `permission_denied`). The rules this server understands depend on
/// the path and the identity only, never on data, so a write never changes what a listener may read.
extension DatabaseServerCore.State {
    /// Gives the connection a new identity and revokes its listens that identity may not read.
    mutating func changeAuth(of id: ServerSessionID, to auth: ServerAuth) {
        sessions[id]?.auth = auth
        revokeUnreadableListens(of: [id])
    }

    /// Revokes, connection by connection in the order given, every listen its connection may no longer read.
    mutating func revokeUnreadableListens(of ids: [ServerSessionID]) {
        for id in ids {
            guard let session = sessions[id] else { continue }
            for key in session.listens.keys.sorted(by: Self.listenOrder) {
                guard let listen = session.listens[key],
                      !isAllowed(listen.path, write: false, namespace: session.namespace, auth: session.auth) else { continue }
                sessions[id]?.listens[key] = nil
                session.sink(.message(ServerMessages.revoked(listen.path, query: listen.wireQuery)))
            }
        }
    }

    /// Every open connection, in the order they opened.
    var orderedSessionIDs: [ServerSessionID] {
        sessions.keys.sorted { $0.rawValue < $1.rawValue }
    }
}
