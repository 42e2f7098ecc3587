/// An immutable database node: empty (null), a leaf (a ``LeafValue`` with an optional priority), or children (a
/// ``ChildMap`` from key to non-empty node, in ``KeyOrder``, with an optional priority; changing one child is
/// O(log n) and shares the rest). Writing an empty node deletes; a
/// children node that loses its last child becomes empty and drops its priority.
///
/// ```swift
/// let node = Node.empty.updateChild(DatabasePath(keys: ["a", "b"]), Node(leaf: .int(1)))
/// node.child(DatabasePath(keys: ["a"])).numChildren   // 1
/// ```
package final class Node: Sendable {
    enum Storage: Sendable {
        /// Every value is non-empty.
        case children(ChildMap)
        case leaf(LeafValue)
        /// The sentinel above every node (Firebase's `MAX_NODE`), only used as an index bound.
        case max
    }

    let storage: Storage
    /// The priority (a leaf), nil for none.
    let storedPriority: Node?

    package static let empty = Node(storage: .children(.empty), priority: nil)
    package static let max = Node(storage: .max, priority: nil)

    init(storage: Storage, priority: Node?) {
        self.storage = storage
        if let priority, !priority.isEmpty {
            storedPriority = priority
        } else {
            storedPriority = nil
        }
    }

    /// A children node from named children in any order, built at once (empty children are left out; the last of
    /// two children with one key wins).
    package convenience init(children: [NamedNode], priority: Node = .empty) {
        var map: [String: Node] = [:]
        for child in children where !child.node.isEmpty { map[child.name] = child.node }
        let keys = map.keys.sorted { KeyOrder.compare($0, $1) < 0 }
        self.init(storage: .children(ChildMap(sorted: keys.map { ($0, map[$0]!) })), priority: keys.isEmpty ? nil : priority)
    }

    /// A leaf with an optional priority.
    package convenience init(leaf: LeafValue, priority: Node = .empty) {
        self.init(storage: .leaf(leaf), priority: priority)
    }

    package var isLeaf: Bool {
        if case .leaf = storage { return true }
        return false
    }

    package var isMax: Bool {
        if case .max = storage { return true }
        return false
    }

    package var isEmpty: Bool {
        if case .children(let map) = storage { return map.isEmpty }
        return false
    }

    package var leafValue: LeafValue? {
        if case .leaf(let value) = storage { return value }
        return nil
    }

    package var numChildren: Int {
        if case .children(let map) = storage { return map.count }
        return 0
    }

    /// The child keys in key order (none for a leaf; O(n)).
    package var childKeys: [String] {
        if case .children(let map) = storage { return map.keys }
        return []
    }

    /// The priority node: empty for none; the max sentinel is its own priority.
    package var priority: Node {
        if isMax { return self }
        return storedPriority ?? .empty
    }

    package func hasChild(_ key: String) -> Bool {
        if case .children(let map) = storage { return map[key] != nil }
        return false
    }

    package func immediateChild(_ key: String) -> Node {
        if key == ".priority" { return priority }
        if case .children(let map) = storage { return map[key] ?? .empty }
        return .empty
    }

    package func child(_ path: DatabasePath) -> Node {
        var node = self
        for key in path.keys {
            if key == ".priority" { return node.priority }
            node = node.immediateChild(key)
            if node.isEmpty { return node }
        }
        return node
    }

    /// This node with a new priority; an empty node stays empty (it cannot hold a priority).
    package func updatePriority(_ newPriority: Node) -> Node {
        switch storage {
        case .leaf: return Node(storage: storage, priority: newPriority)
        case .children(let map): return map.isEmpty ? self : Node(storage: storage, priority: newPriority)
        case .max: return self
        }
    }

    package func updateImmediateChild(_ key: String, _ newChild: Node) -> Node {
        if key == ".priority" { return updatePriority(newChild) }
        switch storage {
        case .max:
            return self
        case .leaf:
            if newChild.isEmpty { return self }
            return Node.empty.updateImmediateChild(key, newChild).updatePriority(priority)
        case .children(let map):
            if newChild.isEmpty {
                guard map[key] != nil else { return self }
                let updated = map.setting(key, nil)
                return Node(storage: .children(updated), priority: updated.isEmpty ? nil : storedPriority)
            }
            return Node(storage: .children(map.setting(key, newChild)), priority: storedPriority)
        }
    }

    package func updateChild(_ path: DatabasePath, _ newChild: Node) -> Node {
        guard let front = path.front else { return newChild }
        if isLeaf, newChild.isEmpty, front != ".priority" { return self }
        let updated = immediateChild(front).updateChild(path.popFront, newChild)
        return updateImmediateChild(front, updated)
    }
}
