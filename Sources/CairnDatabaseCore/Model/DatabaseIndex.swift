/// The four orders a query can use: by priority (the default), by key, by value, or by the value at a child path.
/// Every index breaks ties by ``KeyOrder``.
///
/// ```swift
/// let index = DatabaseIndex.child(DatabasePath(keys: ["age"]))
/// index.compare(NamedNode("a", ageNode(30)), NamedNode("b", ageNode(20)))   // > 0
/// ```
package enum DatabaseIndex: Hashable, Sendable, CustomStringConvertible {
    case priority
    case key
    case value
    case child(DatabasePath)

    /// Negative, zero or positive as `a` orders before, with or after `b`.
    package func compare(_ a: NamedNode, _ b: NamedNode) -> Int {
        let valueOrder: Int
        switch self {
        case .key:
            return KeyOrder.compare(a.name, b.name)
        case .priority:
            valueOrder = a.node.priority.compareValue(to: b.node.priority)
        case .value:
            valueOrder = a.node.compareValue(to: b.node)
        case .child(let path):
            valueOrder = a.node.child(path).compareValue(to: b.node.child(path))
        }
        return valueOrder != 0 ? valueOrder : KeyOrder.compare(a.name, b.name)
    }

    /// True when the indexed value differs between the two versions of a child (a `child_moved` candidate).
    package func indexedValueChanged(_ old: Node, _ new: Node) -> Bool {
        switch self {
        case .key: false
        case .priority: !old.priority.isEqual(to: new.priority)
        case .value: !old.isEqual(to: new)
        case .child: compare(NamedNode(KeyOrder.minName, old), NamedNode(KeyOrder.minName, new)) != 0
        }
    }

    /// The bound below every child.
    package var minPost: NamedNode { .min }

    /// The bound above every child.
    package var maxPost: NamedNode {
        switch self {
        case .key: NamedNode(KeyOrder.maxName, .empty)
        case .value: .max
        case .priority: NamedNode(KeyOrder.maxName, Node(leaf: .string("[PRIORITY-POST]"), priority: .max))
        case .child(let path): NamedNode(KeyOrder.maxName, Node.empty.updateChild(path, .max))
        }
    }

    /// A bound at an index value (a leaf or empty node) and key: for the key index, the value's string is the key.
    package func makePost(_ value: Node, name: String) -> NamedNode {
        switch self {
        case .key:
            if case .string(let key)? = value.leafValue { return NamedNode(key, .empty) }
            return NamedNode(name, .empty)
        case .value: return NamedNode(name, value)
        case .priority: return NamedNode(name, Node(leaf: .string("[PRIORITY-POST]"), priority: value))
        case .child(let path): return NamedNode(name, Node.empty.updateChild(path, value))
        }
    }

    /// The wire name (`i`): `.priority`, `.key`, `.value` or the child path.
    package var description: String {
        switch self {
        case .priority: ".priority"
        case .key: ".key"
        case .value: ".value"
        case .child(let path): path.keys.joined(separator: "/")
        }
    }
}

extension Node {
    /// The children as named nodes in the index's order.
    package func sortedChildren(by index: DatabaseIndex) -> [NamedNode] {
        guard case .children(let map) = storage else { return [] }
        let named = map.map { NamedNode($0.key, $0.node) }
        if index == .key || (index == .priority && !map.hasPriorities) { return named }
        return named.sorted { index.compare($0, $1) < 0 }
    }

    /// The key before `name` in the index's order, nil for the first.
    package func predecessorChildName(_ name: String, _ node: Node, index: DatabaseIndex) -> String? {
        if case .children(let map) = storage, ordersChildrenByKey(index, with: node) { return map.key(before: name) }
        let sorted = sortedChildren(by: index)
        let target = NamedNode(name, node)
        var previous: String?
        for child in sorted {
            if index.compare(child, target) >= 0 { break }
            previous = child.name
        }
        return previous
    }

    /// Whether the index orders the children, with `node` among them, by key: the key index, or the priority
    /// index while no child has a priority (then a predecessor is found in O(log n)).
    package func ordersChildrenByKey(_ index: DatabaseIndex, with node: Node) -> Bool {
        guard case .children(let map) = storage else { return false }
        return index == .key || (index == .priority && !map.hasPriorities && node.storedPriority == nil)
    }

    package func firstChild(by index: DatabaseIndex) -> NamedNode? { sortedChildren(by: index).first }

    package func lastChild(by index: DatabaseIndex) -> NamedNode? { sortedChildren(by: index).last }

    /// Children at or after `post` in the index's order, ascending.
    package func children(from post: NamedNode, by index: DatabaseIndex) -> [NamedNode] {
        sortedChildren(by: index).filter { index.compare($0, post) >= 0 }
    }

    /// Children at or before `post` in the index's order, descending.
    package func children(reverseFrom post: NamedNode, by index: DatabaseIndex) -> [NamedNode] {
        sortedChildren(by: index).filter { index.compare($0, post) <= 0 }.reversed()
    }
}
