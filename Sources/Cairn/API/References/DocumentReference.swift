import CairnModel
import Foundation

/// A reference to a document location: read it, write it, listen to it. The document need not exist.
///
/// ```swift
/// let ref = db.collection("users").document("ada")
/// ref.setData(["name": "Ada", "born": 1815]) { error in ... }
/// ref.updateData(["visits": FieldValue.increment(Int64(1))])
/// let snapshot = try await ref.getDocument()
/// let registration = ref.addSnapshotListener { snapshot, error in ... }
/// ```
///
/// A reference made from an invalid path (`db.document("users")`, an odd number of segments) does not stop the
/// program as Firebase does: every call on it reports Firebase's `invalidArgument` error to its completion,
/// listener or `async` caller.
public final class DocumentReference: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The database the document is in.
    public let firestore: Firestore
    /// The document's key, or the error that makes the path invalid.
    let key: Result<DocumentKey, FirestoreErrorCode>
    /// The path as the user gave it (for ``path`` and ``documentID`` of an invalid reference).
    private let givenPath: ResourcePath

    init(firestore: Firestore, path: ResourcePath) {
        self.firestore = firestore
        self.givenPath = path
        do throws(ModelError) {
            key = .success(try DocumentKey(validating: path))
        } catch {
            key = .failure(FirestoreErrorCode(error))
        }
    }

    init(firestore: Firestore, key: DocumentKey) {
        self.firestore = firestore
        self.givenPath = key.path
        self.key = .success(key)
    }

    init(firestore: Firestore, error: FirestoreErrorCode, path: ResourcePath) {
        self.firestore = firestore
        self.givenPath = path
        self.key = .failure(error)
    }

    /// The document's ID: the last segment of its path.
    public var documentID: String { givenPath.lastSegment ?? "" }

    /// The slash-separated path from the database root, such as `users/ada`.
    public var path: String { givenPath.canonicalString }

    /// The collection the document is in.
    public var parent: CollectionReference {
        CollectionReference(firestore: firestore, path: givenPath.parent ?? .root, inheritedError: key.failure)
    }

    /// The subcollection at `collectionPath` (slash-separated, relative to this document).
    public func collection(_ collectionPath: String) -> CollectionReference {
        CollectionReference(
            firestore: firestore, relativePath: collectionPath, under: givenPath, inheritedError: key.failure)
    }

    public static func == (a: DocumentReference, b: DocumentReference) -> Bool {
        a.firestore === b.firestore && a.givenPath == b.givenPath
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        hasher.combine(givenPath)
    }

    public var description: String { "DocumentReference(\(path))" }

    /// The builder for this database's mutations.
    var mutationBuilder: MutationBuilder { MutationBuilder(databaseID: firestore.databaseID) }
}

extension Result {
    /// The error of a failure; `nil` for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
