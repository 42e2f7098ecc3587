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
