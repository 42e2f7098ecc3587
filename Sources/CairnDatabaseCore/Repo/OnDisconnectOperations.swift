/// The onDisconnect operations the server accepted (Firebase's sparse snapshot tree), as overwrites by path. A
/// merge is remembered as one overwrite per child. Cancelling a path forgets the operations at and below it; an
/// operation above it is split into its children, and the one on the cancelled path is forgotten.
///
/// ```swift
/// var operations = OnDisconnectOperations()
/// operations.remember(path("a"), node)     // {b: 1, c: 2}
/// operations.forget(path("a/b"))           // leaves a/c = 2
/// ```
package struct OnDisconnectOperations {
    package private(set) var operations: [(path: DatabasePath, node: Node)] = []

    package init() {}

    package mutating func remember(_ path: DatabasePath, _ node: Node) {
        operations.removeAll { path.contains($0.path) }
        operations.append((path, node))
    }

    package mutating func forget(_ path: DatabasePath) {
        var result: [(path: DatabasePath, node: Node)] = []
        for operation in operations {
            if path.contains(operation.path) { continue }
            if operation.path.contains(path) {
                result += OnDisconnectOperations.split(operation, without: path)
            } else {
                result.append(operation)
            }
        }
        operations = result
    }

    /// `operation` as operations on its children, down to `path`, which is left out.
    private static func split(_ operation: (path: DatabasePath, node: Node), without path: DatabasePath) -> [(path: DatabasePath, node: Node)] {
        if operation.path == path { return [] }
        var result: [(path: DatabasePath, node: Node)] = []
        for key in operation.node.childKeys {
            let child = (path: operation.path.child(key), node: operation.node.immediateChild(key))
            result += child.path.contains(path) ? split(child, without: path) : [child]
        }
        return result
    }

    package mutating func clear() { operations = [] }
}
