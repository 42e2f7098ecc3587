import CairnDatabaseCore

/// What a listener of all the data at one path (a default listen, an event stream) must receive after a write:
/// an overwrite of one location or a merge of children below one location, both as stored (server values
/// resolved). A write elsewhere gives nothing.
///
/// - A set at or below the listened path is sent as it is; a set above it sends the listened location whole.
/// - A merge at or below the listened path is sent as a merge; a merge above it, when one of its children
///   touches the listened location, sends the listened location whole.
///
/// ```swift
/// let update = PathUpdate(after: stored, listeningAt: DatabasePath(keys: ["users"])) { database.read(namespace: ns, path: $0) }
/// ```
package enum PathUpdate: Sendable {
    case overwrite(DatabasePath, Node)
    case merge(DatabasePath, [(DatabasePath, Node)])

    /// The update for a listener at `listenPath`, nil when the write does not touch it; `current` reads the data
    /// after the write.
    package init?(after write: ServerWrite, listeningAt listenPath: DatabasePath, current: (DatabasePath) -> Node) {
        switch write {
        case .set(let path, let node):
            if listenPath.contains(path) {
                self = .overwrite(path, node)
            } else if path.contains(listenPath) {
                self = .overwrite(listenPath, current(listenPath))
            } else {
                return nil
            }
        case .merge(let path, let children):
            if listenPath.contains(path) {
                self = .merge(path, children)
            } else if path.contains(listenPath) {
                let touches = children.contains { relative, _ in
                    let full = path.child(relative)
                    return full.contains(listenPath) || listenPath.contains(full)
                }
                guard touches else { return nil }
                self = .overwrite(listenPath, current(listenPath))
            } else {
                return nil
            }
        }
    }

    /// True when the write may change what a listener at `listenPath` sees (for query listens, which are then
    /// evaluated again).
    package static func touches(_ write: ServerWrite, _ listenPath: DatabasePath) -> Bool {
        write.changedPaths.contains { $0.contains(listenPath) || listenPath.contains($0) }
    }
}
