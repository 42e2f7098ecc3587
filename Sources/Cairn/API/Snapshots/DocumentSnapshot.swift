import CairnModel
import Foundation

/// A document's contents at one moment, as a read or listener saw them. The document may not exist
/// (``exists`` is `false` and ``data()`` is `nil`).
///
/// ```swift
/// let snapshot = try await db.document("users/ada").getDocument()
/// if let data = snapshot.data() { print(data["name"] as? String ?? "") }
/// let city = snapshot.get("address.city") as? String
/// let updated = snapshot.get("updated", serverTimestampBehavior: .estimate) as? Timestamp
/// ```
public class DocumentSnapshot: @unchecked Sendable, CustomStringConvertible {
    /// The document's location.
    public let reference: DocumentReference
    /// How fresh the contents are.
    public let metadata: SnapshotMetadata
    /// The document when it exists.
    let document: CairnModel.Document?

    init(reference: DocumentReference, document: CairnModel.Document?, metadata: SnapshotMetadata) {
        self.reference = reference
        self.document = document?.exists == true ? document : nil
        self.metadata = metadata
    }

    /// True when the document exists.
    public var exists: Bool { document != nil }

    /// The document's ID.
    public var documentID: String { reference.documentID }

    /// The fields, with pending server timestamps as `NSNull`; `nil` when the document does not exist.
    public func data() -> [String: Any]? { data(with: .none) }

    /// The fields, with pending server timestamps shown as `serverTimestampBehavior` says.
    public func data(with serverTimestampBehavior: ServerTimestampBehavior) -> [String: Any]? {
        guard let document else { return nil }
        return writer(serverTimestampBehavior).convert(document.data)
    }

    /// The value at `field` (a dotted `String` or a ``FieldPath``); `nil` when the document or the field does not
    /// exist, or when `field` is not a valid field path (Firebase raises an exception there; a getter cannot
    /// report an error, so Cairn answers "no such field").
    public func get(_ field: Any) -> Any? { get(field, serverTimestampBehavior: .none) }

    /// The value at `field`, with pending server timestamps shown as `serverTimestampBehavior` says.
    public func get(_ field: Any, serverTimestampBehavior: ServerTimestampBehavior) -> Any? {
        guard let document, let path = Self.fieldPath(field) else { return nil }
        if path.isDocumentKey { return nil }
        return document.data.value(at: path).map(writer(serverTimestampBehavior).convert)
    }

    /// `snapshot["name"]`: ``get(_:)``.
    public subscript(key: Any) -> Any? { self.get(key) }

    public var description: String {
        "<FIRDocumentSnapshot: \(reference.path), exists=\(exists), \(metadata)>"
    }

    private func writer(_ behavior: ServerTimestampBehavior) -> UserDataWriter {
        UserDataWriter(firestore: reference.firestore, serverTimestampBehavior: behavior)
    }

    private static func fieldPath(_ field: Any) -> CairnModel.FieldPath? {
        switch field {
        case let string as String: try? FieldPath.dotted(string).get()
        case let path as FieldPath: try? path.parsed.get()
        default: nil
        }
    }
}

/// A snapshot of a document in a query's results: it always exists, so ``data()`` is not optional.
///
/// ```swift
/// for document in querySnapshot.documents {
///     print(document.documentID, document.data())
/// }
/// ```
public final class QueryDocumentSnapshot: DocumentSnapshot, @unchecked Sendable {
    /// The fields, with pending server timestamps as `NSNull`.
    public override func data() -> [String: Any] { data(with: .none) }

    /// The fields, with pending server timestamps shown as `serverTimestampBehavior` says.
    public override func data(with serverTimestampBehavior: ServerTimestampBehavior) -> [String: Any] {
        super.data(with: serverTimestampBehavior) ?? [:]
    }
}
