/// Firebase's value order of nodes (`orderByValue`, child paths, priorities) and node equality.
///
/// Empty < leaves (in ``LeafValue`` order) < children nodes (all equal to each other) < the max sentinel.
extension Node {
    /// Negative, zero or positive as this node orders before, with or after `other` by value.
    package func compareValue(to other: Node) -> Int {
        switch (storage, other.storage) {
        case (.max, .max): return 0
        case (.max, _): return 1
        case (_, .max): return -1
        case let (.leaf(a), .leaf(b)): return a.compare(to: b)
        case (.leaf, _): return other.isEmpty ? 1 : -1
        case (_, .leaf): return isEmpty ? -1 : 1
        default:
            if isEmpty { return other.isEmpty ? 0 : -1 }
            return other.isEmpty ? 1 : 0
        }
    }

    /// The same value, priority and children (Firebase's `equals`).
    package func isEqual(to other: Node) -> Bool {
        if self === other { return true }
        switch (storage, other.storage) {
        case let (.leaf(a), .leaf(b)):
            return a.isSameValue(as: b) && priority.isEqual(to: other.priority)
        case let (.children(map), .children(otherMap)):
            guard map.count == otherMap.count, priority.isEqual(to: other.priority) else { return false }
            for (mine, theirs) in zip(map, otherMap) {
                guard mine.key == theirs.key, mine.node.isEqual(to: theirs.node) else { return false }
            }
            return true
        default:
            return false
        }
    }
}
