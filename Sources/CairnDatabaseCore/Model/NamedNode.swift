/// A child with its key, the unit the indexes order (Firebase's `NamedNode`). A "post" is a named node used as a
/// range bound: ``NamedNode/min`` and ``NamedNode/max`` bound every index from below and above.
package struct NamedNode: Sendable {
    package let name: String
    package let node: Node

    package init(_ name: String, _ node: Node) {
        self.name = name
        self.node = node
    }

    package static let min = NamedNode(KeyOrder.minName, .empty)
    package static let max = NamedNode(KeyOrder.maxName, .max)
}
