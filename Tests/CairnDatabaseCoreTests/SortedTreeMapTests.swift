import CairnTestSupport
import Foundation
import Testing
@testable import CairnDatabaseCore

@Suite("Children of nodes and of immutable trees: a persistent balanced tree in their order")
struct SortedTreeMapTests {
    /// Keys that exercise the key order: integers (numeric order), strings, and both mixed.
    func key(_ random: inout SeededRandom) -> String {
        switch random.next() % 3 {
        case 0: "\(random.next() % 200)"
        case 1: "k\(random.next() % 200)"
        default: String(UnicodeScalar(UInt8(97 + random.next() % 26))) + "\(random.next() % 10)"
        }
    }

    @Test("Random sets and removals give the same children, key order, lookups and predecessors as a dictionary; earlier versions stay as they were",
          arguments: [1, 2, 3] as [UInt64])
    func matchesADictionary(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var map = ChildMap.empty
        var reference: [String: Node] = [:]
        var versions: [(ChildMap, [String: Node])] = []
        for step in 0..<3000 {
            let key = key(&random)
            if random.next() % 4 == 0 {
                map = map.setting(key, nil)
                reference[key] = nil
            } else {
                let priority = random.next() % 5 == 0 ? Node(leaf: .int(1)) : .empty
                let node = Node(leaf: .int(Int64(step)), priority: priority)
                map = map.setting(key, node)
                reference[key] = node
            }
            if step % 500 == 0 { versions.append((map, reference)) }
        }
        for (version, expected) in versions + [(map, reference)] {
            let sorted = expected.keys.sorted { KeyOrder.compare($0, $1) < 0 }
            #expect(version.keys == sorted)
            #expect(version.count == expected.count)
            #expect(version.hasPriorities == expected.values.contains { $0.storedPriority != nil })
            for (position, key) in sorted.enumerated() {
                #expect(version[key] === expected[key])
                #expect(version.key(before: key) == (position > 0 ? sorted[position - 1] : nil))
            }
            #expect(version["absent-key"] == nil)
            if let root = version.root {
                // AVL: the height stays within 1.45 log2(n + 2).
                #expect(Double(root.height) <= 1.45 * log2(Double(root.count + 2)))
            }
        }
    }

    @Test("Adding a child to a node of 10,000 children rebuilds only the path to it: every other subtree is shared")
    func updatesShareSubtrees() {
        var node = Node.empty
        for index in 0..<10_000 { node = node.updateImmediateChild("c\(index)", Node(leaf: .int(Int64(index)))) }
        let updated = node.updateImmediateChild("new", Node(leaf: .int(1)))
        guard case .children(let before) = node.storage, case .children(let after) = updated.storage else {
            Issue.record("children nodes expected")
            return
        }
        let created = newTreeNodes(from: before, to: after)
        #expect(after.count == 10_001)
        #expect(created <= 2 * after.root!.height, "only the path to the new child is new: \(created) nodes")
        #expect(updated.childKeys.count == 10_001)
        #expect(node.immediateChild("new").isEmpty, "the old node is unchanged")
    }

    @Test("Setting a path under an immutable tree's parent of 10,000 children rebuilds only the path to it; children iterate in code-unit order")
    func immutableTreeUpdatesShareSubtrees() {
        var tree = ImmutableTree<Int>()
        for index in 0..<10_000 { tree = tree.setting(DatabasePath(keys: ["list", "c\(index)"]), index) }
        let updated = tree.setting(DatabasePath(keys: ["list", "new"]), -1)
        let before = tree.subtree(DatabasePath(keys: ["list"])).children
        let after = updated.subtree(DatabasePath(keys: ["list"])).children
        let created = newTreeNodes(from: before, to: after)
        #expect(after.count == 10_001)
        #expect(created <= 2 * after.root!.height, "only the path to the new child is new: \(created) nodes")
        #expect(tree.value(at: DatabasePath(keys: ["list", "new"])) == nil, "the old tree is unchanged")
        #expect(updated.value(at: DatabasePath(keys: ["list", "new"])) == -1)
        let keys = updated.subtree(DatabasePath(keys: ["list"])).sortedChildKeys
        #expect(keys == keys.sorted { KeyOrder.compareCodeUnits($0, $1) < 0 })
    }
}

/// How many tree nodes of `after` are not shared with `before` (an update that shares subtrees creates only the
/// nodes on the path to what changed).
private func newTreeNodes<Order, Value>(from before: SortedTreeMap<Order, Value>, to after: SortedTreeMap<Order, Value>) -> Int {
    func collect(_ node: SortedTreeMap<Order, Value>.Tree?, into set: inout Set<ObjectIdentifier>) {
        guard let node else { return }
        set.insert(ObjectIdentifier(node))
        collect(node.left, into: &set)
        collect(node.right, into: &set)
    }
    var old = Set<ObjectIdentifier>()
    var new = Set<ObjectIdentifier>()
    collect(before.root, into: &old)
    collect(after.root, into: &new)
    return new.subtracting(old).count
}
