/// Turns a view's changes into events for its registrations (Firebase's `EventGenerator`): removed, added, moved,
/// changed, then value; child events of one type sorted by the query's index; `child_moved` for a changed child
/// whose indexed value changed; previous-sibling keys from the new event cache.
package struct EventGenerator {
    package let query: QuerySpec

    package func events(for changes: [Change], eventCache: Node, registrations: [any EventRegistration]) -> [DatabaseEvent] {
        let index = query.params.index
        var moves: [Change] = []
        for change in changes where change.type == .childChanged {
            if index.indexedValueChanged(change.oldNode!, change.node) {
                moves.append(.childMoved(change.childKey!, change.node))
            }
        }
        var events: [DatabaseEvent] = []
        // The previous sibling of every child of the event cache, from one sort (not one per event).
        var predecessors: [String: String?]?
        func predecessor(_ key: String, _ node: Node) -> String? {
            // In key order the tree finds it at once; otherwise one sort serves every event.
            if eventCache.ordersChildrenByKey(index, with: node) { return eventCache.predecessorChildName(key, node, index: index) }
            if predecessors == nil {
                let sorted = eventCache.sortedChildren(by: index)
                var map: [String: String?] = [:]
                for (position, child) in sorted.enumerated() { map[child.name] = position > 0 ? sorted[position - 1].name : nil }
                predecessors = map
            }
            if let known = predecessors![key] { return known }
            return eventCache.predecessorChildName(key, node, index: index)
        }
        for type in [EventType.childRemoved, .childAdded, .childMoved, .childChanged, .value] {
            var ofType = (type == .childMoved ? moves : changes).filter { $0.type == type }
            if type != .value {
                ofType.sort { index.compare(NamedNode($0.childKey!, $0.node), NamedNode($1.childKey!, $1.node)) < 0 }
            }
            for var change in ofType {
                if type != .value && type != .childRemoved {
                    change.prevName = predecessor(change.childKey!, change.node)
                }
                for registration in registrations where registration.responds(to: type) {
                    events.append(.data(DataEvent(type: type, registration: registration, query: query, childKey: change.childKey, node: change.node, prevName: change.prevName)))
                }
            }
        }
        return events
    }
}
