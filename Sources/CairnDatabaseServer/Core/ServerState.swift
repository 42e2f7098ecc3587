import CairnDatabaseCore

extension DatabaseServerCore {
    /// A precondition on a write: none, Firebase's node hash (WebSocket transactions), or an HTTP ETag (REST
    /// `if-match`, as firebase-admin's transactions send it).
    package enum WriteCondition: Sendable {
        case none
        case hash(String)
        case etag(String)
    }

    /// The ETag the REST API reports for data: its node hash, or a fixed text for no data.
    package static func etag(of node: Node) -> String {
        let hash = node.hash
        return hash.isEmpty ? "null_etag" : hash
    }

    /// Everything the core owns, mutated only under its lock.
    struct State: Sendable {
        var host: String
        let limits: Limits
        let clock: @Sendable () -> Int64
        var database = ServerDatabase()
        var sessions: [ServerSessionID: ServerSessionState] = [:]
        var streams: [Int: ServerEventStream] = [:]
        var nextID = 1
        var refusals: [(namespace: String, path: DatabasePath)] = []
        /// The rules every identity but the administrator is held to, nil for none (everything allowed).
        var rules: ServerRules?
        var holdingAcknowledgements = false
        var heldAcknowledgements: [(ServerSessionID, String)] = []
        var pushIDs = PushIDGenerator()
        /// Where stored writes are made durable (`--data DIR`), nil in memory only.
        var storage: ServerStorage?

        init(host: String, limits: Limits, clock: @escaping @Sendable () -> Int64) {
            self.host = host
            self.limits = limits
            self.clock = clock
        }

        mutating func takeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        // MARK: Access

        func isAllowed(_ path: DatabasePath, write: Bool, namespace: String, auth: ServerAuth) -> Bool {
            if auth.isAdmin { return true }
            if refusals.contains(where: { $0.namespace == namespace && ($0.path.contains(path) || path.contains($0.path)) }) {
                return false
            }
            return rules?.allows(path, write: write, auth: auth) ?? true
        }

        func checkAccess(_ paths: [DatabasePath], write: Bool, namespace: String, auth: ServerAuth) throws(ServerError) {
            for path in paths where !isAllowed(path, write: write, namespace: namespace, auth: auth) {
                throw ServerError(.permissionDenied, "permission denied: \(write ? "writing" : "reading") \(path) in namespace \(namespace)")
            }
        }

        mutating func refuse(_ path: DatabasePath, namespace: String) {
            refusals.append((namespace, path))
            revokeUnreadableListens(of: orderedSessionIDs.filter { sessions[$0]?.namespace == namespace })
        }

        // MARK: Writes

        /// Checks access and the condition, applies the write (its records appended to the storage first when the
        /// server persists; the caller syncs them after releasing the lock), and pushes it to every listener.
        @discardableResult
        mutating func applyWrite(
            _ write: ServerWrite, namespace: String, auth: ServerAuth, condition: WriteCondition
        ) throws(ServerError) -> ServerWrite {
            try checkAccess(write.changedPaths, write: true, namespace: namespace, auth: auth)
            var expectedHash: String?
            switch condition {
            case .none: break
            case .hash(let hash): expectedHash = hash
            case .etag(let etag):
                let current = database.read(namespace: namespace, path: write.path)
                if DatabaseServerCore.etag(of: current) != etag {
                    throw ServerError(.dataStale, "the data at \(write.path) changed: its ETag is no longer \(etag)")
                }
            }
            var updated = database
            let stored = try updated.apply(write, namespace: namespace, expectedHash: expectedHash, timestamp: clock())
            if let storage {
                do {
                    try storage.record(stored, namespace: namespace)
                } catch {
                    throw ServerError(.unavailable, "the write to \(write.path) could not be stored, so it was not applied: \(error)")
                }
            }
            database = updated
            fanOut(stored, namespace: namespace)
            return stored
        }

        mutating func holdAcknowledgements(_ hold: Bool) {
            holdingAcknowledgements = hold
            guard !hold else { return }
            let held = heldAcknowledgements
            heldAcknowledgements.removeAll()
            for (id, message) in held { sessions[id]?.sink(.message(message)) }
        }
    }
}
