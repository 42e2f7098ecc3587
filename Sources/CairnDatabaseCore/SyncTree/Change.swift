/// The kinds of events, in the order Firebase raises them within one batch for one registration.
package enum EventType: String, Sendable, CaseIterable, Comparable {
    case childRemoved = "child_removed"
    case childAdded = "child_added"
    case childMoved = "child_moved"
    case childChanged = "child_changed"
    case value

    var rank: Int { EventType.allCases.firstIndex(of: self)! }

    package static func < (a: EventType, b: EventType) -> Bool { a.rank < b.rank }
}

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

/// Collects the child changes of one operation, folding repeated changes of a child into one (Firebase's
/// `ChildChangeAccumulator`): removed then added is changed, added then removed is nothing, and so on.
package struct ChildChangeAccumulator {
    private var order: [String] = []
    private var changes: [String: Change] = [:]

    package init() {}

    package mutating func track(_ change: Change) {
        let key = change.childKey!
        guard let old = changes[key] else {
            order.append(key)
            changes[key] = change
            return
        }
        switch (change.type, old.type) {
        case (.childAdded, .childRemoved):
            changes[key] = .childChanged(key, change.node, old: old.node)
        case (.childRemoved, .childAdded):
            changes[key] = nil
            order.removeAll { $0 == key }
        case (.childRemoved, .childChanged):
            changes[key] = .childRemoved(key, old.oldNode!)
        case (.childChanged, .childAdded):
            changes[key] = .childAdded(key, change.node)
        case (.childChanged, .childChanged):
            changes[key] = .childChanged(key, change.node, old: old.oldNode!)
        default:
            preconditionFailure("illegal change sequence for child \(key): \(change.type) after \(old.type)")
        }
    }

    package var all: [Change] { order.map { changes[$0]! } }
}
