/// onDisconnect operations (Firebase's `FRepo onDisconnect...`): sent to the server, remembered locally once the
/// server accepted them, and applied locally as server data when this client sees its connection drop (then
/// forgotten: the server runs them once). Without a connection they are never accepted, so nothing is remembered.
extension Repo {
    package func onDisconnectSetValue(at path: DatabasePath, _ node: Node, completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            connection?.onDisconnectPut(path, node.exportJSON()) { [weak self] status in
                guard let self else { return }
                self.onQueue {
                    if status == .ok { self.onDisconnect.remember(path, node) }
                    completion(status)
                }
            }
        }
    }

    package func onDisconnectUpdate(at path: DatabasePath, _ children: [(DatabasePath, Node)], completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            guard !children.isEmpty else { return completion(.ok) }
            var wire: [String: JSONValue] = [:]
            for (relative, node) in children { wire[relative.keys.joined(separator: "/")] = node.exportJSON() }
            nonisolated(unsafe) let children = children
            connection?.onDisconnectMerge(path, wire) { [weak self] status in
                guard let self else { return }
                self.onQueue {
                    if status == .ok {
                        for (relative, node) in children { self.onDisconnect.remember(path.child(relative), node) }
                    }
                    completion(status)
                }
            }
        }
    }

    package func onDisconnectCancel(at path: DatabasePath, completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            connection?.onDisconnectCancel(path) { [weak self] status in
                guard let self else { return }
                self.onQueue {
                    if status == .ok { self.onDisconnect.forget(path) }
                    completion(status)
                }
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
