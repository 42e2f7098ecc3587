/// A mutable tree of values by database path, for the cache's views (server records by path, tracked queries by
/// path). Unlike ``ImmutableTree`` an update touches only the nodes on its path, whatever the fan-out, so replaying
/// a large cache stays linear.
///
/// ```swift
/// let trie = PathTrie<Int>()
/// trie.set(DatabasePath(keys: ["a", "b"]), 1)
/// trie.removeSubtree(DatabasePath(keys: ["a"]))   // [(/a/b, 1)]
/// ```
final class PathTrie<Value> {
    private final class Branch {
        var value: Value?
        var children: [String: Branch] = [:]
        var isEmpty: Bool { value == nil && children.isEmpty }
    }

    private let root = Branch()
    private(set) var count = 0

    func value(at path: DatabasePath) -> Value? { branch(at: path)?.value }

    func set(_ path: DatabasePath, _ value: Value?) {
        if value == nil {
            remove(path)
            return
        }
        var branch = root
        for key in path.keys {
            if let next = branch.children[key] {
                branch = next
            } else {
                let next = Branch()
                branch.children[key] = next
                branch = next
            }
        }
        if branch.value == nil { count += 1 }
        branch.value = value
    }

    /// Removes the value at `path` (not its descendants).
    private func remove(_ path: DatabasePath) {
        var trail: [(Branch, String)] = []
        var branch = root
        for key in path.keys {
            guard let next = branch.children[key] else { return }
            trail.append((branch, key))
            branch = next
        }
        if branch.value != nil { count -= 1 }
        branch.value = nil
        prune(trail)
    }

    /// Removes every value at and below `path`; returns them with their paths.
    @discardableResult
    func removeSubtree(_ path: DatabasePath) -> [(DatabasePath, Value)] {
        var trail: [(Branch, String)] = []
        var branch = root
        for key in path.keys {
            guard let next = branch.children[key] else { return [] }
            trail.append((branch, key))
            branch = next
        }
        var removed: [(DatabasePath, Value)] = []
        Self.collect(branch, path, into: &removed)
        count -= removed.count
        branch.value = nil
        branch.children = [:]
        prune(trail)
        return removed
    }

    /// The value nearest to the root, at or above `path` (strictly above without `includingSelf`), that `matches`
    /// accepts.
    func firstAbove(_ path: DatabasePath, includingSelf: Bool = true, _ matches: (DatabasePath, Value) -> Bool) -> (DatabasePath, Value)? {
        var branch = root
        var depth = 0
        let limit = includingSelf ? path.count : path.count - 1
        while depth <= limit {
            let walked = DatabasePath(keys: Array(path.keys.prefix(depth)))
            if let value = branch.value, matches(walked, value) { return (walked, value) }
            guard depth < limit, let next = branch.children[path.keys[depth]] else { return nil }
            branch = next
            depth += 1
        }
        return nil
    }

    /// The deepest value at or above `path`.
    func nearestAbove(_ path: DatabasePath) -> (DatabasePath, Value)? {
        var branch = root
        var found: (DatabasePath, Value)?
        var depth = 0
        while true {
            if let value = branch.value { found = (DatabasePath(keys: Array(path.keys.prefix(depth))), value) }
            guard depth < path.count, let next = branch.children[path.keys[depth]] else { return found }
            branch = next
            depth += 1
        }
    }

    /// Values strictly below `path`, as paths relative to it, shallower before deeper.
    func descendants(of path: DatabasePath) -> [(DatabasePath, Value)] {
        guard let start = branch(at: path) else { return [] }
        var result: [(DatabasePath, Value)] = []
        var level: [(Branch, [String])] = [(start, [])]
        while !level.isEmpty {
            var next: [(Branch, [String])] = []
            for (branch, keys) in level {
                for (key, child) in branch.children {
                    let childKeys = keys + [key]
                    if let value = child.value { result.append((DatabasePath(keys: childKeys), value)) }
                    next.append((child, childKeys))
                }
            }
            level = next
        }
        return result
    }

    /// The immediate children of `path` that hold a value or have descendants, with the child's own value.
    func children(of path: DatabasePath) -> [(String, Value?)] {
        guard let branch = branch(at: path) else { return [] }
        return branch.children.map { ($0.key, $0.value.value) }
    }

    /// Every value with its path.
    func forEach(_ body: (DatabasePath, Value) -> Void) {
        var all: [(DatabasePath, Value)] = []
        Self.collect(root, .root, into: &all)
        for (path, value) in all { body(path, value) }
    }

    private func branch(at path: DatabasePath) -> Branch? {
        var branch = root
        for key in path.keys {
            guard let next = branch.children[key] else { return nil }
            branch = next
        }
        return branch
    }

    private func prune(_ trail: [(Branch, String)]) {
        for (parent, key) in trail.reversed() {
            guard let child = parent.children[key], child.isEmpty else { return }
            parent.children[key] = nil
        }
    }

    private static func collect(_ branch: Branch, _ path: DatabasePath, into result: inout [(DatabasePath, Value)]) {
        var stack: [(Branch, DatabasePath)] = [(branch, path)]
        while let (current, currentPath) = stack.popLast() {
            if let value = current.value { result.append((currentPath, value)) }
            for (key, child) in current.children { stack.append((child, currentPath.child(key))) }
        }
    }
}
