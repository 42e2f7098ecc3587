/// onDisconnect operations (Firebase's `FRepo onDisconnect...`): sent to the server, remembered locally once the
/// server accepted them, and applied locally as server data when this client sees its connection drop (then
/// forgotten: the server runs them once). Without a connection they are never accepted, so nothing is remembered.
extension Repo {
    package func onDisconnectSetValue(at path: DatabasePath, _ node: Node, completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            track("o \(path)", { connection?.onDisconnectPut(path, node.exportJSON(), onComplete: $0) }) { [self] status in
                if status == .ok { onDisconnect.remember(path, node) }
                completion(status)
            }
        }
    }

    package func onDisconnectUpdate(at path: DatabasePath, _ children: [(DatabasePath, Node)], completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            guard !children.isEmpty else { return completion(.ok) }
            var wire: [String: JSONValue] = [:]
            for (relative, node) in children { wire[relative.keys.joined(separator: "/")] = node.exportJSON() }
            track("om \(path)", { connection?.onDisconnectMerge(path, wire, onComplete: $0) }) { [self] status in
                if status == .ok {
                    for (relative, node) in children { onDisconnect.remember(path.child(relative), node) }
                }
                completion(status)
            }
        }
    }

    package func onDisconnectCancel(at path: DatabasePath, completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            track("oc \(path)", { connection?.onDisconnectCancel(path, onComplete: $0) }) { [self] status in
                if status == .ok { onDisconnect.forget(path) }
                completion(status)
            }
        }
    }

    /// Applies the remembered operations as server overwrites (server values resolved locally), then forgets them.
    func runOnDisconnectOperations() {
        let timestamp = serverTimestamp()
        var events: [DatabaseEvent] = []
        for (path, node) in onDisconnect.operations {
            let existing = syncTree.calcCompleteEventCache(path) ?? .empty
            events += syncTree.applyServerOverwrite(path, ServerValues.resolve(node, existing: existing, timestamp: timestamp))
        }
        onDisconnect.clear()
        deliver(events)
    }
}
