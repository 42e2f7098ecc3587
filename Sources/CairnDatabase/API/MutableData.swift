import CairnDatabaseCore
import Foundation

/// The data a transaction's block reads and changes: a location in a value that the block may rewrite. Children
/// obtained with ``childData(byAppendingPath:)`` write into the same value.
///
/// ```swift
/// ref.runTransactionBlock { data in
///     data.value = (data.value as? Int ?? 0) + 1
///     return .success(withValue: data)
/// }
/// ```
public final class MutableData: @unchecked Sendable {
    /// The value every `MutableData` of one transaction run shares, and the first invalid value set.
    final class Holder {
        var node: Node
        var error: DatabaseCoreError?
        init(_ node: Node) { self.node = node }
    }

    let holder: Holder
    let path: DatabasePath
    let rootKey: String?

    init(holder: Holder, path: DatabasePath, rootKey: String?) {
        self.holder = holder
        self.path = path
        self.rootKey = rootKey
    }

    private var node: Node { holder.node.child(path) }

    /// The value (as ``DataSnapshot/value``); setting it replaces the data at this location (nil removes it). An
    /// invalid value fails the transaction with `invalid_argument`.
    public var value: Any? {
        get { DatabaseValues.any(node.valueJSON()) }
        set {
            do throws(DatabaseCoreError) {
                let new = try DatabaseValues.node(newValue, at: path)
                holder.node = holder.node.updateChild(path, new.isEmpty ? new : new.updatePriority(node.priority))
            } catch {
                holder.error = holder.error ?? error
            }
        }
    }

    /// The priority; setting it keeps the value.
    public var priority: Any? {
        get { node.priority.isEmpty ? nil : DatabaseValues.any(node.priority.exportJSON()) }
        set {
            do throws(DatabaseCoreError) {
                let priority = try DatabaseValues.node([".value": 0, ".priority": newValue ?? NSNull()], at: path).priority
                holder.node = holder.node.updateChild(path, node.updatePriority(priority))
            } catch {
                holder.error = holder.error ?? error
            }
        }
    }

    /// The key of this location (the transaction's key at the top, nil for the root).
    public var key: String? { path.back ?? rootKey }
    public var childrenCount: UInt { UInt(node.numChildren) }

    /// The children, in priority order, as `MutableData`.
    public var children: NSEnumerator {
        let items = node.sortedChildren(by: .priority).map { childData(path.child($0.name)) }
        return NSArray(array: items).objectEnumerator()
    }

    public func hasChildren() -> Bool { node.numChildren > 0 }
    public func hasChild(atPath path: String) -> Bool { !node.child(DatabasePath(unvalidated: path)).isEmpty }

    /// The data at a relative path; setting its value writes into this transaction's value.
    public func childData(byAppendingPath path: String) -> MutableData { childData(self.path.child(DatabasePath(unvalidated: path))) }

    private func childData(_ full: DatabasePath) -> MutableData { MutableData(holder: holder, path: full, rootKey: rootKey) }
}

/// What a transaction block returns: write this data, or abort.
public final class TransactionResult: @unchecked Sendable {
    let data: MutableData?

    private init(data: MutableData?) { self.data = data }

    public static func success(withValue value: MutableData) -> TransactionResult { TransactionResult(data: value) }
    public static func abort() -> TransactionResult { TransactionResult(data: nil) }
}
