/// A persistent tree keyed by path with an optional value at every node (Firebase's `ImmutableTree`): the shape of
/// compound writes, merges, ack trees and the sync-point tree. Children iterate in UTF-16 code-unit order of
/// their keys, as Firebase's do (this decides the order of events across sync points). They are a
/// ``SortedTreeMap``, so setting a path under a parent of n children is O(log n), sharing the rest.
///
/// ```swift
/// let tree = ImmutableTree<Int>().setting(DatabasePath(keys: ["a", "b"]), 1)
/// tree.value(at: DatabasePath(keys: ["a", "b"]))   // 1
/// ```
package struct ImmutableTree<Value> {
    package var value: Value?
    var children: SortedTreeMap<CodeUnitOrderOfChildren, ImmutableTree<Value>>

    init(value: Value? = nil, children: SortedTreeMap<CodeUnitOrderOfChildren, ImmutableTree<Value>> = .empty) {
        self.value = value
        self.children = children
    }

    package var isEmpty: Bool { value == nil && children.isEmpty }

    /// Child keys in code-unit order.
    package var sortedChildKeys: [String] { children.keys }

    package func value(at path: DatabasePath) -> Value? {
        subtree(path).value
    }

    package func subtree(_ path: DatabasePath) -> ImmutableTree<Value> {
        var tree = self
        for key in path.keys {
            guard let child = tree.children[key] else { return ImmutableTree() }
            tree = child
        }
        return tree
    }

    /// The value nearest the root on `path` and where it is.
    package func rootMostValue(on path: DatabasePath) -> (path: DatabasePath, value: Value)? {
        var tree = self
        var walked: [String] = []
        if let value = tree.value { return (.root, value) }
        for key in path.keys {
            guard let child = tree.children[key] else { return nil }
            tree = child
            walked.append(key)
            if let value = tree.value { return (DatabasePath(keys: walked), value) }
        }
        return nil
    }

    package func setting(_ path: DatabasePath, _ newValue: Value?) -> ImmutableTree<Value> {
        guard let front = path.front else { return ImmutableTree(value: newValue, children: children) }
        var copy = self
        copy.children[front] = (children[front] ?? ImmutableTree()).setting(path.popFront, newValue)
        return copy
    }

    package func settingTree(_ path: DatabasePath, _ newTree: ImmutableTree<Value>) -> ImmutableTree<Value> {
        guard let front = path.front else { return newTree }
        var copy = self
        let child = (children[front] ?? ImmutableTree()).settingTree(path.popFront, newTree)
        copy.children[front] = child.isEmpty ? nil : child
        return copy
    }

    package func removing(_ path: DatabasePath) -> ImmutableTree<Value> {
        guard let front = path.front else { return ImmutableTree(value: nil, children: children) }
        guard let child = children[front] else { return self }
        var copy = self
        let newChild = child.removing(path.popFront)
        copy.children[front] = newChild.isEmpty ? nil : newChild
        return copy
    }

    /// Calls `body` for every value, children before their parent, children in key order.
    package func forEach(_ body: (DatabasePath, Value) -> Void) {
        forEach(at: .root, body)
    }

    private func forEach(at path: DatabasePath, _ body: (DatabasePath, Value) -> Void) {
        for key in sortedChildKeys { children[key]!.forEach(at: path.child(key), body) }
        if let value { body(path, value) }
    }

    /// Calls `body` with every value on `path` above its end (from the root down), excluding the end itself.
    package func forEachAbove(_ path: DatabasePath, _ body: (DatabasePath, Value) -> Void) {
        var tree = self
        var walked: [String] = []
        for key in path.keys {
            if let value = tree.value { body(DatabasePath(keys: walked), value) }
            guard let child = tree.children[key] else { return }
            tree = child
            walked.append(key)
        }
    }

    /// The first non-nil result of `body` on the values along `path`, from the root down (including its end).
    package func firstOnPath<Result>(_ path: DatabasePath, _ body: (DatabasePath, Value) -> Result?) -> Result? {
        var tree = self
        var walked: [String] = []
        if let value = tree.value, let result = body(.root, value) { return result }
        for key in path.keys {
            guard let child = tree.children[key] else { return nil }
            tree = child
            walked.append(key)
            if let value = tree.value, let result = body(DatabasePath(keys: walked), value) { return result }
        }
        return nil
    }

    /// Folds the tree bottom up: `body` gets the path, the value and the folded children in key order.
    package func fold<Result>(_ body: (DatabasePath, Value?, [(String, Result)]) -> Result) -> Result {
        fold(at: .root, body)
    }

    private func fold<Result>(at path: DatabasePath, _ body: (DatabasePath, Value?, [(String, Result)]) -> Result) -> Result {
        let folded = sortedChildKeys.map { key in (key, children[key]!.fold(at: path.child(key), body)) }
        return body(path, value, folded)
    }
}

/// ``ImmutableTree``'s children mark nothing.
extension ImmutableTree: SortedTreeMapValue {
    var isMarked: Bool { false }
}
