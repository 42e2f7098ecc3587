/// An order of child keys for ``SortedTreeMap``.
protocol ChildKeyOrder {
    static func compare(_ a: String, _ b: String) -> Int
}

/// ``KeyOrder``: the order of a node's children.
enum KeyOrderOfChildren: ChildKeyOrder {
    static func compare(_ a: String, _ b: String) -> Int { KeyOrder.compare(a, b) }
}

/// UTF-16 code units: the order of ``ImmutableTree``'s children (Firebase's).
enum CodeUnitOrderOfChildren: ChildKeyOrder {
    static func compare(_ a: String, _ b: String) -> Int { KeyOrder.compareCodeUnits(a, b) }
}

/// A value of a ``SortedTreeMap`` that the map counts when it is marked (a node with a priority).
protocol SortedTreeMapValue {
    var isMarked: Bool { get }
}

/// A node's children (``ChildMap``): they carry a priority or not.
extension Node: SortedTreeMapValue {
    var isMarked: Bool { storedPriority != nil }
}

/// The children of a node, in ``KeyOrder``: a priority counts as a mark.
typealias ChildMap = SortedTreeMap<KeyOrderOfChildren, Node>

extension SortedTreeMap where Value == Node {
    /// Whether some child has a priority.
    var hasPriorities: Bool { markedCount > 0 }
}

/// A persistent balanced search tree (AVL) from child key to value, in the role of Firebase's immutable sorted
/// dictionary: a node's children (``ChildMap``) and ``ImmutableTree``'s. Looking a key up, adding, replacing or
/// removing one is O(log n), and an update shares every subtree it does not touch with the map it came from, so a
/// parent with n children changed one child at a time costs O(log n) per change instead of a copy of n. Each
/// subtree counts its marked values (for a node: children with a priority), so "no child has a priority" is O(1).
///
/// ```swift
/// let map = ChildMap.empty.setting("b", Node(leaf: .int(2))).setting("a", Node(leaf: .int(1)))
/// map.keys                  // ["a", "b"]
/// map.key(before: "b")      // "a"
/// ```
struct SortedTreeMap<Order: ChildKeyOrder, Value: SortedTreeMapValue>: Sequence {
    /// Immutable once built; shared between the maps that contain it.
    final class Tree: @unchecked Sendable {
        let key: String
        let value: Value
        let left: Tree?
        let right: Tree?
        let height: Int
        let count: Int
        /// Marked values in this subtree.
        let marked: Int

        init(_ key: String, _ value: Value, _ left: Tree?, _ right: Tree?) {
            self.key = key
            self.value = value
            self.left = left
            self.right = right
            height = Swift.max(left?.height ?? 0, right?.height ?? 0) + 1
            count = (left?.count ?? 0) + (right?.count ?? 0) + 1
            marked = (left?.marked ?? 0) + (right?.marked ?? 0) + (value.isMarked ? 1 : 0)
        }
    }

    let root: Tree?

    static var empty: SortedTreeMap { SortedTreeMap(root: nil) }

    private init(root: Tree?) { self.root = root }

    /// A map of `children`, which are in the map's order with distinct keys (built balanced in O(n)).
    init(sorted children: [(key: String, node: Value)]) {
        func build(_ range: Range<Int>) -> Tree? {
            guard !range.isEmpty else { return nil }
            let middle = range.lowerBound + range.count / 2
            return Tree(children[middle].key, children[middle].node, build(range.lowerBound..<middle), build((middle + 1)..<range.upperBound))
        }
        root = build(0..<children.count)
    }

    var count: Int { root?.count ?? 0 }
    var isEmpty: Bool { root == nil }
    /// How many values are marked.
    var markedCount: Int { root?.marked ?? 0 }

    /// The keys in the map's order (O(n)).
    var keys: [String] {
        var keys: [String] = []
        keys.reserveCapacity(count)
        for (key, _) in self { keys.append(key) }
        return keys
    }

    subscript(key: String) -> Value? {
        get {
            var tree = root
            while let node = tree {
                let order = Order.compare(key, node.key)
                if order == 0 { return node.value }
                tree = order < 0 ? node.left : node.right
            }
            return nil
        }
        set { self = setting(key, newValue) }
    }

    /// The greatest key before `key` in the map's order; nil when none is.
    func key(before key: String) -> String? {
        var tree = root
        var best: String?
        while let node = tree {
            if Order.compare(node.key, key) < 0 {
                best = node.key
                tree = node.right
            } else {
                tree = node.left
            }
        }
        return best
    }

    /// This map with `key` set to `value` (nil: removed).
    func setting(_ key: String, _ value: Value?) -> SortedTreeMap {
        if let value { return SortedTreeMap(root: Self.insert(key, value, into: root)) }
        guard self[key] != nil else { return self }
        return SortedTreeMap(root: Self.remove(key, from: root))
    }

    private static func insert(_ key: String, _ value: Value, into tree: Tree?) -> Tree {
        guard let tree else { return Tree(key, value, nil, nil) }
        let order = Order.compare(key, tree.key)
        if order == 0 { return Tree(key, value, tree.left, tree.right) }
        if order < 0 { return balanced(tree.key, tree.value, insert(key, value, into: tree.left), tree.right) }
        return balanced(tree.key, tree.value, tree.left, insert(key, value, into: tree.right))
    }

    private static func remove(_ key: String, from tree: Tree?) -> Tree? {
        guard let tree else { return nil }
        let order = Order.compare(key, tree.key)
        if order < 0 { return balanced(tree.key, tree.value, remove(key, from: tree.left), tree.right) }
        if order > 0 { return balanced(tree.key, tree.value, tree.left, remove(key, from: tree.right)) }
        guard let left = tree.left else { return tree.right }
        guard let right = tree.right else { return left }
        let (first, rest) = removeFirst(right)
        return balanced(first.key, first.value, left, rest)
    }

    private static func removeFirst(_ tree: Tree) -> (first: Tree, rest: Tree?) {
        guard let left = tree.left else { return (tree, tree.right) }
        let (first, rest) = removeFirst(left)
        return (first, balanced(tree.key, tree.value, rest, tree.right))
    }

    /// A tree of `key` over `left` and `right`, whose heights differ by at most 2, rotated back into balance.
    private static func balanced(_ key: String, _ value: Value, _ left: Tree?, _ right: Tree?) -> Tree {
        let leftHeight = left?.height ?? 0
        let rightHeight = right?.height ?? 0
        if leftHeight > rightHeight + 1, let left {
            if (left.left?.height ?? 0) >= (left.right?.height ?? 0) {
                return Tree(left.key, left.value, left.left, Tree(key, value, left.right, right))
            }
            let pivot = left.right!
            return Tree(pivot.key, pivot.value, Tree(left.key, left.value, left.left, pivot.left), Tree(key, value, pivot.right, right))
        }
        if rightHeight > leftHeight + 1, let right {
            if (right.right?.height ?? 0) >= (right.left?.height ?? 0) {
                return Tree(right.key, right.value, Tree(key, value, left, right.left), right.right)
            }
            let pivot = right.left!
            return Tree(pivot.key, pivot.value, Tree(key, value, left, pivot.left), Tree(right.key, right.value, pivot.right, right.right))
        }
        return Tree(key, value, left, right)
    }

    /// The entries in the map's order.
    struct Iterator: IteratorProtocol {
        private var stack: [Tree] = []

        init(_ root: Tree?) { descend(root) }

        private mutating func descend(_ tree: Tree?) {
            var tree = tree
            while let node = tree {
                stack.append(node)
                tree = node.left
            }
        }

        mutating func next() -> (key: String, node: Value)? {
            guard let node = stack.popLast() else { return nil }
            descend(node.right)
            return (node.key, node.value)
        }
    }

    func makeIterator() -> Iterator { Iterator(root) }
}

extension SortedTreeMap: Sendable where Value: Sendable {}
