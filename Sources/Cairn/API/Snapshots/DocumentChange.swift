import Foundation

/// What happened to a document between two snapshots of a query.
///
/// ```swift
/// for change in snapshot.documentChanges where change.type == .removed { print("gone:", change.document.documentID) }
/// ```
public enum DocumentChangeType: Int, Sendable, Hashable {
    /// The document entered the results.
    case added
    /// The document's contents (or, with metadata changes, its metadata) changed.
    case modified
    /// The document left the results.
    case removed
}

/// One change between a query's previous snapshot and this one, with the positions Firebase reports: for
/// `added` the old index is `NSNotFound`; for `removed` the new index is `NSNotFound`. Applying a snapshot's
/// changes in order to the previous list of documents (remove at ``oldIndex``, insert at ``newIndex``)
/// reproduces the new list.
///
/// ```swift
/// for change in snapshot.documentChanges {
///     switch change.type {
///     case .added: rows.insert(change.document, at: Int(change.newIndex))
///     case .modified: rows.remove(at: Int(change.oldIndex)); rows.insert(change.document, at: Int(change.newIndex))
///     case .removed: rows.remove(at: Int(change.oldIndex))
///     }
/// }
/// ```
public final class DocumentChange: @unchecked Sendable, CustomStringConvertible {
    public let type: DocumentChangeType
    /// The document as it is now (for `removed`, as it was).
    public let document: QueryDocumentSnapshot
    /// The position in the previous snapshot, or `UInt(NSNotFound)` for `added`.
    public let oldIndex: UInt
    /// The position in this snapshot, or `UInt(NSNotFound)` for `removed`.
    public let newIndex: UInt

    init(type: DocumentChangeType, document: QueryDocumentSnapshot, oldIndex: UInt, newIndex: UInt) {
        self.type = type
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }

    /// Firebase's "no index".
    static let notFound = UInt(NSNotFound)

    public var description: String {
        "DocumentChange(\(type), \(document.reference.path), old: \(oldIndex == Self.notFound ? "-" : "\(oldIndex)"), "
            + "new: \(newIndex == Self.notFound ? "-" : "\(newIndex)"))"
    }
}
