/// A set of overwrites at paths relative to one location, the deepest write wins where they overlap (Firebase's
/// `CompoundWrite`). A write below an existing one is folded into it; a write above replaces everything below.
///
/// ```swift
/// var write = CompoundWrite()
/// write = write.adding(DatabasePath(keys: ["a"]), node)
/// write.apply(to: serverNode)          // serverNode with /a replaced
/// write.completeNode(at: DatabasePath(keys: ["a", "b"]))   // node's child b
/// ```
package struct CompoundWrite {
    package private(set) var tree: ImmutableTree<Node>

    package init(tree: ImmutableTree<Node> = ImmutableTree()) {
        self.tree = tree
    }

    package var isEmpty: Bool { tree.isEmpty }

    package func adding(_ path: DatabasePath, _ node: Node) -> CompoundWrite {
        if path.isEmpty { return CompoundWrite(tree: ImmutableTree(value: node)) }
        if let rootMost = tree.rootMostValue(on: path) {
            let relative = DatabasePath.relative(from: rootMost.path, to: path)!
            return CompoundWrite(tree: tree.setting(rootMost.path, rootMost.value.updateChild(relative, node)))
        }
        return CompoundWrite(tree: tree.settingTree(path, ImmutableTree(value: node)))
    }

    /// Adds each (relative path, node) of a merge below `path`, in order.
    package func adding(_ path: DatabasePath, merge: [(DatabasePath, Node)]) -> CompoundWrite {
        merge.reduce(self) { $0.adding(path.child($1.0), $1.1) }
    }

    /// Drops the writes at and below `path` (not those above it).
    package func removing(_ path: DatabasePath) -> CompoundWrite {
        if path.isEmpty { return CompoundWrite() }
        return CompoundWrite(tree: tree.settingTree(path, ImmutableTree()))
    }

    /// True when a write covers `path` completely.
    package func hasCompleteWrite(at path: DatabasePath) -> Bool { completeNode(at: path) != nil }

    /// The node a write at or above `path` sets there, nil when no write covers `path`.
    package func completeNode(at path: DatabasePath) -> Node? {
        guard let rootMost = tree.rootMostValue(on: path) else { return nil }
        return rootMost.value.child(DatabasePath.relative(from: rootMost.path, to: path)!)
    }

    /// The immediate children this write sets completely, in priority order for a root write, else key order.
    package var completeChildren: [NamedNode] {
        if let node = tree.value {
            return node.isLeaf ? [] : node.sortedChildren(by: .priority)
        }
        return tree.sortedChildKeys.compactMap { key in tree.children[key]!.value.map { NamedNode(key, $0) } }
    }

    /// The writes relative to `path`.
    package func childWrite(_ path: DatabasePath) -> CompoundWrite {
        if path.isEmpty { return self }
        if let shadowing = completeNode(at: path) { return CompoundWrite(tree: ImmutableTree(value: shadowing)) }
        return CompoundWrite(tree: tree.subtree(path))
    }

    /// `node` with these writes applied; a priority write applies only where the node is not empty.
    package func apply(to node: Node) -> Node {
        CompoundWrite.apply(.root, tree, node)
    }

    private static func apply(_ relative: DatabasePath, _ writeTree: ImmutableTree<Node>, _ node: Node) -> Node {
        if let value = writeTree.value { return node.updateChild(relative, value) }
        var result = node
        var priorityWrite: Node?
        for key in writeTree.sortedChildKeys {
            let childTree = writeTree.children[key]!
            if key == ".priority" {
                priorityWrite = childTree.value
            } else {
                result = apply(relative.child(key), childTree, result)
            }
        }
        if let priorityWrite, !result.child(relative).isEmpty {
            result = result.updateChild(relative.child(".priority"), priorityWrite)
        }
        return result
    }
}
