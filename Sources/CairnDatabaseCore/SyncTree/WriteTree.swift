/// The pending user writes, in write-id order, and the compound write of the visible ones (Firebase's `WriteTree`).
/// Views ask it, through a ``WriteTreeRef`` at their path, what the local data looks like over server data.
///
/// ```swift
/// let writes = WriteTree()
/// writes.addOverwrite(path, node, writeId: 0, visible: true)
/// writes.removeWrite(0)          // true: views must re-evaluate (ack or revert)
/// ```
package final class WriteTree {
    package private(set) var allWrites: [WriteRecord] = []
    package private(set) var visibleWrites = CompoundWrite()
    package private(set) var lastWriteId = -1
    /// How many of ``allWrites`` are hidden (a transaction's sets).
    private var hiddenWriteCount = 0
    /// False once a removal left ``visibleWrites`` other than the layering of the visible writes (a write removed
    /// while an earlier one at or above it is pending stays folded into it, as in Firebase); a re-layering makes
    /// it true again. With it and no hidden write, the visible compound write is every write.
    private var visibleWritesAreLayered = true

    package init() {}

    package func addOverwrite(_ path: DatabasePath, _ node: Node, writeId: Int, visible: Bool) {
        precondition(writeId > lastWriteId, "write ids must increase")
        allWrites.append(WriteRecord(writeId: writeId, path: path, snap: node, children: nil, visible: visible))
        if visible { visibleWrites = visibleWrites.adding(path, node) } else { hiddenWriteCount += 1 }
        lastWriteId = writeId
    }

    package func addMerge(_ path: DatabasePath, _ children: [(DatabasePath, Node)], writeId: Int) {
        precondition(writeId > lastWriteId, "write ids must increase")
        allWrites.append(WriteRecord(writeId: writeId, path: path, snap: nil, children: children, visible: true))
        visibleWrites = visibleWrites.adding(path, merge: children)
        lastWriteId = writeId
    }

    /// Forgets every pending write (`purgeOutstandingWrites`); ids keep increasing. True when there were any.
    package func removeAllWrites() -> Bool {
        defer {
            allWrites = []
            visibleWrites = CompoundWrite()
            hiddenWriteCount = 0
            visibleWritesAreLayered = true
        }
        return !allWrites.isEmpty
    }

    package func write(_ writeId: Int) -> WriteRecord? {
        allWrites.first { $0.writeId == writeId }
    }

    /// Removes a write (acknowledged or reverted); true when views must re-evaluate (it was visible and not
    /// shadowed by a later write).
    package func removeWrite(_ writeId: Int) -> Bool {
        guard let position = allWrites.firstIndex(where: { $0.writeId == writeId }) else { return false }
        let removed = allWrites.remove(at: position)
        if !removed.visible { hiddenWriteCount -= 1 }
        var wasVisible = removed.visible
        var overlapsOthers = false
        var index = allWrites.count - 1
        while wasVisible && index >= 0 {
            let current = allWrites[index]
            if current.visible {
                if index >= position && current.covers(removed.path) {
                    wasVisible = false
                } else if removed.path.contains(current.path) {
                    overlapsOthers = true
                }
            }
            index -= 1
        }
        if !wasVisible { return false }
        if overlapsOthers {
            visibleWrites = WriteTree.layer(allWrites, at: .root) { $0.visible }
            visibleWritesAreLayered = true
            lastWriteId = allWrites.last?.writeId ?? -1
            return true
        }
        if allWrites[..<position].contains(where: { $0.visible && $0.touches(removed.path) }) { visibleWritesAreLayered = false }
        if removed.snap != nil {
            visibleWrites = visibleWrites.removing(removed.path)
        } else {
            for (childPath, _) in removed.children ?? [] {
                visibleWrites = visibleWrites.removing(removed.path.child(childPath))
            }
        }
        return true
    }

    /// The compound write of `writes` that pass `filter`, relative to `root`.
    static func layer(_ writes: [WriteRecord], at root: DatabasePath, filter: (WriteRecord) -> Bool) -> CompoundWrite {
        var compound = CompoundWrite()
        for write in writes where filter(write) {
            if let snap = write.snap {
                if let relative = DatabasePath.relative(from: root, to: write.path) {
                    compound = compound.adding(relative, snap)
                } else if let relative = DatabasePath.relative(from: write.path, to: root) {
                    compound = compound.adding(.root, snap.child(relative))
                }
            } else if let children = write.children {
                if let relative = DatabasePath.relative(from: root, to: write.path) {
                    compound = compound.adding(relative, merge: children)
                } else if let relative = DatabasePath.relative(from: write.path, to: root) {
                    for (childPath, node) in children {
                        if let inside = DatabasePath.relative(from: childPath, to: relative) {
                            compound = compound.adding(.root, node.child(inside))
                        } else if let below = DatabasePath.relative(from: relative, to: childPath) {
                            compound = compound.adding(below, node)
                        }
                    }
                }
            }
        }
        return compound
    }

    /// The complete local node at `path`: writes over `serverCache`, or nil when neither is complete. With
    /// `includeHidden` the node is never nil (writes over empty data). With `excluding`, or `includeHidden` while a
    /// write is hidden (or the visible compound write is not their layering), the writes are re-layered
    /// (transactions compute their base this way); otherwise the visible compound write answers, so that
    /// restoring n writes, each read under the ones before, stays linear.
    package func calcCompleteEventCache(_ path: DatabasePath, serverCache: Node?, excluding: [Int] = [], includeHidden: Bool = false) -> Node? {
        if excluding.isEmpty && (!includeHidden || (hiddenWriteCount == 0 && visibleWritesAreLayered)) {
            if let shadowing = visibleWrites.completeNode(at: path) { return shadowing }
            let subMerge = visibleWrites.childWrite(path)
            if subMerge.isEmpty { return includeHidden ? serverCache ?? .empty : serverCache }
            if !includeHidden && serverCache == nil && !subMerge.hasCompleteWrite(at: .root) { return nil }
            return subMerge.apply(to: serverCache ?? .empty)
        }
        let merge = visibleWrites.childWrite(path)
        if !includeHidden && merge.isEmpty { return serverCache }
        if !includeHidden && serverCache == nil && !merge.hasCompleteWrite(at: .root) { return nil }
        let layered = WriteTree.layer(allWrites, at: path) { write in
            (write.visible || includeHidden) && !excluding.contains(write.writeId) && write.touches(path)
        }
        return layered.apply(to: serverCache ?? .empty)
    }

    /// The children at `path` known completely: from a write covering `path`, else the server children with writes
    /// applied plus the children that writes set completely.
    package func calcCompleteEventChildren(_ path: DatabasePath, serverChildren: Node?) -> Node {
        if let topLevel = visibleWrites.completeNode(at: path) {
            return Node(children: topLevel.sortedChildren(by: .key))
        }
        let merge = visibleWrites.childWrite(path)
        var children: [NamedNode] = []
        if let serverChildren {
            for child in serverChildren.sortedChildren(by: .key) {
                children.append(NamedNode(child.name, merge.childWrite(DatabasePath(keys: [child.name])).apply(to: child.node)))
            }
        }
        children += merge.completeChildren
        return Node(children: children)
    }

    /// The event node at `path/childPath` after a server overwrite there, nil when a write shadows it.
    package func calcEventCacheAfterServerOverwrite(_ path: DatabasePath, childPath: DatabasePath, serverNode: Node) -> Node? {
        let full = path.child(childPath)
        if visibleWrites.hasCompleteWrite(at: full) { return nil }
        let childMerge = visibleWrites.childWrite(full)
        if childMerge.isEmpty { return serverNode.child(childPath) }
        return childMerge.apply(to: serverNode.child(childPath))
    }

    /// The complete child `key` at `path`: from writes, or server data where the server cache is complete for it.
    package func calcCompleteChild(_ path: DatabasePath, key: String, serverCache: CacheNode) -> Node? {
        let full = path.child(key)
        if let shadowing = visibleWrites.completeNode(at: full) { return shadowing }
        guard serverCache.isCompleteForChild(key) else { return nil }
        return visibleWrites.childWrite(full).apply(to: serverCache.node.immediateChild(key))
    }

    /// The node a visible write sets at `path`, nil when none covers it.
    package func shadowingWrite(_ path: DatabasePath) -> Node? {
        visibleWrites.completeNode(at: path)
    }

    /// Up to `count` children after `post` in the index's order (before it when `reverse`) in the local data.
    package func calcIndexedSlice(_ path: DatabasePath, serverData: Node?, after post: NamedNode, count: Int, reverse: Bool, index: DatabaseIndex) -> [NamedNode] {
        let merge = visibleWrites.childWrite(path)
        let toIterate: Node
        if let shadowing = merge.completeNode(at: .root) {
            toIterate = shadowing
        } else if let serverData {
            toIterate = merge.apply(to: serverData)
        } else {
            return []
        }
        guard !toIterate.isEmpty, !toIterate.isLeaf else { return [] }
        let candidates = reverse ? toIterate.children(reverseFrom: post, by: index) : toIterate.children(from: post, by: index)
        return Array(candidates.lazy.filter { index.compare($0, post) != 0 }.prefix(count))
    }
}

/// The write tree seen from one path (Firebase's `WriteTreeRef`).
package struct WriteTreeRef {
    package let path: DatabasePath
    package let writeTree: WriteTree

    package func child(_ key: String) -> WriteTreeRef { WriteTreeRef(path: path.child(key), writeTree: writeTree) }

    package func calcCompleteEventCache(_ serverCache: Node?) -> Node? {
        writeTree.calcCompleteEventCache(path, serverCache: serverCache)
    }

    package func calcCompleteEventChildren(_ serverChildren: Node?) -> Node {
        writeTree.calcCompleteEventChildren(path, serverChildren: serverChildren)
    }

    package func calcEventCacheAfterServerOverwrite(_ childPath: DatabasePath, serverNode: Node) -> Node? {
        writeTree.calcEventCacheAfterServerOverwrite(path, childPath: childPath, serverNode: serverNode)
    }

    package func shadowingWrite(_ relative: DatabasePath) -> Node? {
        writeTree.shadowingWrite(path.child(relative))
    }

    package func calcIndexedSlice(_ serverData: Node?, after post: NamedNode, count: Int, reverse: Bool, index: DatabaseIndex) -> [NamedNode] {
        writeTree.calcIndexedSlice(path, serverData: serverData, after: post, count: count, reverse: reverse, index: index)
    }

    package func calcCompleteChild(_ key: String, serverCache: CacheNode) -> Node? {
        writeTree.calcCompleteChild(path, key: key, serverCache: serverCache)
    }
}
