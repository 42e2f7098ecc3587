import CairnModel
import Foundation

/// A reference to a collection: a ``Query`` for all its documents, and the place to make document references
/// and add documents.
///
/// ```swift
/// let cities = db.collection("cities")
/// let sf = cities.document("SF")
/// let added = cities.addDocument(data: ["name": "Tokyo"]) { error in ... }
/// print(added.documentID)   // a new 20-character ID
/// ```
///
/// A reference made from an invalid path reports Firebase's `invalidArgument` error on every use (see ``Query``).
public final class CollectionReference: Query, @unchecked Sendable {
    private let givenPath: ResourcePath

    /// The collection at `path` (absolute), or the reference carrying `inheritedError` (from an invalid parent).
    init(firestore: Firestore, path: ResourcePath, inheritedError: FirestoreErrorCode?) {
        givenPath = path
        let state: Result<CairnModel.Query, FirestoreErrorCode>
        if let inheritedError {
            state = .failure(inheritedError)
        } else {
            do throws(ModelError) {
                try ResourcePath.validateCollectionPath(path)
                state = .success(CairnModel.Query(path: path))
            } catch {
                state = .failure(FirestoreErrorCode(error))
            }
        }
        super.init(firestore: firestore, state: state)
    }

    /// The collection at the slash-separated `relativePath` under `base`.
    convenience init(firestore: Firestore, relativePath: String, under base: ResourcePath, inheritedError: FirestoreErrorCode?) {
        if relativePath.isEmpty {
            self.init(firestore: firestore, path: base, error: FirestoreErrorCode(.invalidArgument, "Collection path cannot be empty."))
            return
        }
        do throws(ModelError) {
            let relative = try ResourcePath(parsing: relativePath)
            self.init(firestore: firestore, path: base.appending(relative), inheritedError: inheritedError)
        } catch {
            self.init(firestore: firestore, path: base, error: FirestoreErrorCode(error))
        }
    }

    private init(firestore: Firestore, path: ResourcePath, error: FirestoreErrorCode) {
        givenPath = path
        super.init(firestore: firestore, state: .failure(error))
    }

    /// The collection's ID: the last segment of its path.
    public var collectionID: String { givenPath.lastSegment ?? "" }

    /// The slash-separated path from the database root, such as `users/ada/posts`.
    public var path: String { givenPath.canonicalString }

    /// The document that holds this subcollection; `nil` for a top-level collection.
    public var parent: DocumentReference? {
        guard let parentPath = givenPath.parent, !parentPath.isEmpty else { return nil }
        return DocumentReference(firestore: firestore, path: parentPath)
    }

    /// A reference to a new document with an automatically generated 20-character ID.
    public func document() -> DocumentReference {
        document(Self.autoID())
    }

    /// The document at the slash-separated `documentPath` relative to this collection.
    public func document(_ documentPath: String) -> DocumentReference {
        if case .failure(let error) = state {
            return DocumentReference(firestore: firestore, error: error, path: givenPath.appending(documentPath))
        }
        return DocumentReference.make(firestore: firestore, relativePath: documentPath, under: givenPath)
    }

    /// Adds a document with a generated ID and `data`, and returns its reference at once (the write completes
    /// later, offline when the server acknowledges it).
    @discardableResult
    public func addDocument(data: [String: Any], completion: ((Error?) -> Void)? = nil) -> DocumentReference {
        let reference = document()
        reference.setData(data, completion: completion)
        return reference
    }

    /// Firebase's automatic ID: 20 characters from `[A-Za-z0-9]` (about 119 bits of randomness).
    static func autoID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}

extension DocumentReference {
    /// The document at the slash-separated `relativePath` under `base`, with Firebase's checks.
    static func make(firestore: Firestore, relativePath: String, under base: ResourcePath) -> DocumentReference {
        if relativePath.isEmpty {
            return DocumentReference(
                firestore: firestore, error: FirestoreErrorCode(.invalidArgument, "Document path cannot be empty."),
                path: base)
        }
        do throws(ModelError) {
            return DocumentReference(firestore: firestore, path: base.appending(try ResourcePath(parsing: relativePath)))
        } catch {
            return DocumentReference(firestore: firestore, error: FirestoreErrorCode(error), path: base)
        }
    }
}

extension Firestore {
    /// The collection at the slash-separated `collectionPath`, such as `"users"` or `"users/ada/posts"`.
    public func collection(_ collectionPath: String) -> CollectionReference {
        CollectionReference(firestore: self, relativePath: collectionPath, under: .root, inheritedError: nil)
    }

    /// The document at the slash-separated `documentPath`, such as `"users/ada"`.
    public func document(_ documentPath: String) -> DocumentReference {
        DocumentReference.make(firestore: self, relativePath: documentPath, under: .root)
    }

    /// Every document in every collection whose ID is `collectionID`, at any depth.
    ///
    /// ```swift
    /// db.collectionGroup("landmarks").whereField("type", isEqualTo: "museum")
    /// ```
    public func collectionGroup(_ collectionID: String) -> Query {
        if collectionID.isEmpty {
            return Query(firestore: self, state: .failure(FirestoreErrorCode(.invalidArgument, "Collection ID cannot be empty.")))
        }
        if collectionID.contains("/") {
            return Query(
                firestore: self,
                state: .failure(FirestoreErrorCode(
                    .invalidArgument,
                    "Invalid collection ID '\(collectionID)' passed to function collectionGroup(). Collection IDs "
                        + "must not contain '/'.")))
        }
        return Query(firestore: self, state: .success(CairnModel.Query(path: .root, collectionGroup: collectionID)))
    }
}
