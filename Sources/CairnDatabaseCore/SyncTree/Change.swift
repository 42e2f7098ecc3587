/// One change a view saw: a child added, removed, changed or moved, or the value (Firebase's `Change`).
package struct Change {
    package let type: EventType
    package let node: Node
    package let childKey: String?
    package let oldNode: Node?
    package var prevName: String?

    package static func value(_ node: Node) -> Change {
        Change(type: .value, node: node, childKey: nil, oldNode: nil)
    }

    package static func childAdded(_ key: String, _ node: Node) -> Change {
        Change(type: .childAdded, node: node, childKey: key, oldNode: nil)
    }

    package static func childRemoved(_ key: String, _ node: Node) -> Change {
        Change(type: .childRemoved, node: node, childKey: key, oldNode: nil)
    }

    package static func childChanged(_ key: String, _ node: Node, old: Node) -> Change {
        Change(type: .childChanged, node: node, childKey: key, oldNode: old)
    }

    package static func childMoved(_ key: String, _ node: Node) -> Change {
        Change(type: .childMoved, node: node, childKey: key, oldNode: nil)
    }
}
