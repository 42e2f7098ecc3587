/// Where an operation came from: a user write, or the server (for all queries at the path, or for one tagged query).
package struct OperationSource: Sendable {
    /// A user write; otherwise server data.
    package let fromUser: Bool
    /// The query identifier a tagged server operation is for; nil for all views.
    package let queryId: String?
    package let tagged: Bool

    package static let user = OperationSource(fromUser: true, queryId: nil, tagged: false)
    package static let server = OperationSource(fromUser: false, queryId: nil, tagged: false)

    package static func serverTaggedQuery(_ queryId: String) -> OperationSource {
        OperationSource(fromUser: false, queryId: queryId, tagged: true)
    }
}

/// A change the sync tree passes down to its views (Firebase's `Operation` classes), at a path relative to the
/// sync point that receives it.
package enum Operation {
    case overwrite(OperationSource, DatabasePath, Node)
    case merge(OperationSource, DatabasePath, ImmutableTree<Node>)
    /// An acknowledged (`revert == false`) or rejected write; `affected` marks the paths it wrote.
    case ackUserWrite(DatabasePath, affected: ImmutableTree<Bool>, revert: Bool)
    case listenComplete(OperationSource, DatabasePath)

    package var path: DatabasePath {
        switch self {
        case .overwrite(_, let path, _), .merge(_, let path, _), .ackUserWrite(let path, _, _), .listenComplete(_, let path):
            path
        }
    }

    package var source: OperationSource {
        switch self {
        case .overwrite(let source, _, _), .merge(let source, _, _), .listenComplete(let source, _): source
        case .ackUserWrite: .user
        }
    }

    /// The same operation as seen by the child `key` (nil when it does not reach that child).
    package func forChild(_ key: String) -> Operation? {
        switch self {
        case .overwrite(let source, let path, let node):
            if path.isEmpty { return .overwrite(source, .root, node.immediateChild(key)) }
            return .overwrite(source, path.popFront, node)
        case .merge(let source, let path, let children):
            if !path.isEmpty { return .merge(source, path.popFront, children) }
            let childTree = children.subtree(DatabasePath(keys: [key]))
            if childTree.isEmpty { return nil }
            if let value = childTree.value { return .overwrite(source, .root, value) }
            return .merge(source, .root, childTree)
        case .ackUserWrite(let path, let affected, let revert):
            if !path.isEmpty { return .ackUserWrite(path.popFront, affected: affected, revert: revert) }
            if affected.value != nil { return self }
            return .ackUserWrite(.root, affected: affected.subtree(DatabasePath(keys: [key])), revert: revert)
        case .listenComplete(let source, let path):
            return .listenComplete(source, path.isEmpty ? .root : path.popFront)
        }
    }
}
