import CairnDatabaseCore
import Foundation

/// The data at a location when an event fired: immutable, ordered by the query's index.
///
/// ```swift
/// ref.observe(.value) { snapshot in
///     for case let child as DataSnapshot in snapshot.children { print(child.key, child.value ?? "null") }
/// }
/// ```
public final class DataSnapshot: @unchecked Sendable, CustomStringConvertible {
    /// The location of this data.
    public let ref: DatabaseReference
    let node: Node
    let index: DatabaseIndex

    init(ref: DatabaseReference, node: Node, index: DatabaseIndex = .priority) {
        self.ref = ref
        self.node = node
        self.index = index
    }

    /// The value: `String`, `Int`, `Double`, `Bool`, `[String: Any]`, `[Any]`, or nil when there is no data.
    public var value: Any? { DatabaseValues.any(node.valueJSON()) }

    /// The priority (`String` or a number), nil for none.
    public var priority: Any? { node.priority.isEmpty ? nil : DatabaseValues.any(node.priority.exportJSON()) }

    /// The key of the location (empty for the root, as Firebase's `key` of the root snapshot is an empty name).
    public var key: String { ref.key ?? "" }

    public var childrenCount: UInt { UInt(node.numChildren) }

    /// The child snapshots, in the query's order.
    public var children: NSEnumerator {
        let snapshots = node.sortedChildren(by: index).map { DataSnapshot(ref: ref.descendant(DatabasePath(keys: [$0.name])), node: $0.node, index: index) }
        return NSArray(array: snapshots).objectEnumerator()
    }

    /// The data at a relative path (an empty snapshot when there is none).
    public func childSnapshot(forPath path: String) -> DataSnapshot {
        let relative = DatabasePath(unvalidated: path)
        return DataSnapshot(ref: ref.descendant(relative), node: node.child(relative), index: index)
    }

    public func hasChild(_ path: String) -> Bool { !node.child(DatabasePath(unvalidated: path)).isEmpty }
    public func hasChildren() -> Bool { node.numChildren > 0 }
    public func exists() -> Bool { !node.isEmpty }

    /// The value with priorities (`.value` / `.priority`), as it can be written back.
    public func valueInExportFormat() -> Any? { DatabaseValues.any(node.exportJSON()) }

    public var description: String { "Snap (\(key)) \(value.map { "\($0)" } ?? "<null>")" }
}
