import CairnCore
import CairnModel
import Foundation

/// A query's results at one moment: the documents in query order, what changed since the listener's previous
/// snapshot, and how fresh it is.
///
/// ```swift
/// db.collection("cities").addSnapshotListener { snapshot, error in
///     guard let snapshot else { return print(error!) }
///     print("\(snapshot.count) cities, from cache: \(snapshot.metadata.isFromCache)")
///     for change in snapshot.documentChanges where change.type == .added {
///         print("new:", change.document.documentID)
///     }
/// }
/// ```
public final class QuerySnapshot: @unchecked Sendable, CustomStringConvertible {
    /// The query these are the results of.
    public let query: Query
    public let metadata: SnapshotMetadata
    let snapshot: ViewSnapshot

    init(query: Query, snapshot: ViewSnapshot) {
        self.query = query
        self.snapshot = snapshot
        self.metadata = SnapshotMetadata(hasPendingWrites: !snapshot.mutatedKeys.isEmpty, isFromCache: snapshot.isFromCache)
    }

    /// The documents, in query order.
    public var documents: [QueryDocumentSnapshot] { snapshot.documents.documents.map(documentSnapshot) }

    /// The number of documents.
    public var count: Int { snapshot.documents.count }

    /// True when there are no documents.
    public var isEmpty: Bool { snapshot.documents.isEmpty }

    /// The changes since the previous snapshot of the same listener, without metadata-only changes (on the
    /// first snapshot: every document, `added`).
    public var documentChanges: [DocumentChange] { computeChanges(includeMetadataChanges: false) }

    /// The changes since the previous snapshot; with `includeMetadataChanges`, metadata-only changes are
    /// reported as `modified` too.
    ///
    /// Asking for metadata changes on a snapshot from a listener that did not include them is an error in
    /// Firebase (an exception). This getter cannot report one: it writes Firebase's message to standard error
    /// and returns the changes without metadata changes (the only ones the snapshot has). Use
    /// ``checkedDocumentChanges(includeMetadataChanges:)`` to get the error.
    public func documentChanges(includeMetadataChanges: Bool) -> [DocumentChange] {
        do throws(FirestoreErrorCode) {
            return try checkedDocumentChanges(includeMetadataChanges: includeMetadataChanges)
        } catch {
            UnhandledErrors.report(error)
            return computeChanges(includeMetadataChanges: false)
        }
    }

    /// ``documentChanges(includeMetadataChanges:)``, throwing `invalidArgument` when metadata changes are asked
    /// for but the listener excluded them (Cairn).
    public func checkedDocumentChanges(includeMetadataChanges: Bool) throws(FirestoreErrorCode) -> [DocumentChange] {
        if includeMetadataChanges && snapshot.excludesMetadataChanges {
            throw FirestoreErrorCode(
                .invalidArgument,
                "To include metadata changes with your document changes, you must also pass "
                    + "includeMetadataChanges:true to addSnapshotListener().")
        }
        return computeChanges(includeMetadataChanges: includeMetadataChanges)
    }

    public var description: String {
        "<FIRQuerySnapshot: \(count) documents, \(metadata)>"
    }

    private func documentSnapshot(_ document: CairnModel.Document) -> QueryDocumentSnapshot {
        QueryDocumentSnapshot(
            reference: DocumentReference(firestore: query.firestore, key: document.key), document: document,
            metadata: SnapshotMetadata(
                hasPendingWrites: snapshot.mutatedKeys.contains(document.key), isFromCache: snapshot.isFromCache))
    }

    /// The core's changes with their indexes (``ViewSnapshot/indexedChanges(includeMetadataChanges:)``, where
    /// Firebase's `GenerateChangesFromSnapshot` is).
    private func computeChanges(includeMetadataChanges: Bool) -> [DocumentChange] {
        snapshot.indexedChanges(includeMetadataChanges: includeMetadataChanges).map { change in
            let type: DocumentChangeType =
                switch change.kind {
                case .added: .added
                case .removed: .removed
                case .modified: .modified
                }
            return DocumentChange(
                type: type, document: documentSnapshot(change.document),
                oldIndex: change.oldIndex < 0 ? DocumentChange.notFound : UInt(change.oldIndex),
                newIndex: change.newIndex < 0 ? DocumentChange.notFound : UInt(change.newIndex))
        }
    }
}
