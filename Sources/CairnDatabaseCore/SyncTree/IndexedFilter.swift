/// Keeps every child; reports added, removed and changed children.
package struct IndexedFilter: NodeFilter {
    package let index: DatabaseIndex

    package init(index: DatabaseIndex) {
        self.index = index
    }

    package func updateChild(_ snap: Node, key: String, newChild: Node, affectedPath: DatabasePath, source: any CompleteChildSource, accumulator: inout ChildChangeAccumulator?) -> Node {
        let oldChild = snap.immediateChild(key)
        if oldChild.child(affectedPath).isEqual(to: newChild.child(affectedPath)), oldChild.isEmpty == newChild.isEmpty {
            return snap
        }
        if accumulator != nil {
            if newChild.isEmpty {
                if snap.hasChild(key) { accumulator!.track(.childRemoved(key, oldChild)) }
            } else if oldChild.isEmpty {
                accumulator!.track(.childAdded(key, newChild))
            } else {
                accumulator!.track(.childChanged(key, newChild, old: oldChild))
            }
        }
        if snap.isLeaf && newChild.isEmpty { return snap }
        return snap.updateImmediateChild(key, newChild)
    }

    package func updateFullNode(_ oldSnap: Node, _ newSnap: Node, accumulator: inout ChildChangeAccumulator?) -> Node {
        if accumulator != nil {
            if !oldSnap.isLeaf {
                for child in oldSnap.sortedChildren(by: .priority) where !newSnap.hasChild(child.name) {
                    accumulator!.track(.childRemoved(child.name, child.node))
                }
            }
            if !newSnap.isLeaf {
                for child in newSnap.sortedChildren(by: .priority) {
                    if oldSnap.hasChild(child.name) {
                        let oldChild = oldSnap.immediateChild(child.name)
                        if !oldChild.isEqual(to: child.node) {
                            accumulator!.track(.childChanged(child.name, child.node, old: oldChild))
                        }
                    } else {
                        accumulator!.track(.childAdded(child.name, child.node))
                    }
                }
            }
        }
        return newSnap
    }

    package func updatePriority(_ oldSnap: Node, _ newPriority: Node) -> Node {
        oldSnap.isEmpty ? .empty : oldSnap.updatePriority(newPriority)
    }

    package var filtersNodes: Bool { false }
    package var indexedFilter: IndexedFilter { self }
}
