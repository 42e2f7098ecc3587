import Foundation

/// The `async` forms of ``Query``, ``CollectionReference`` and ``WriteBatch`` calls.
///
/// ```swift
/// let snapshot = try await db.collection("cities").whereField("capital", isEqualTo: true).getDocuments()
/// let ref = try await db.collection("cities").addDocument(data: ["name": "Lyon"])
/// try await batch.commit()
/// ```
extension Query {
    public func getDocuments() async throws -> QuerySnapshot {
        try await getDocuments(source: .default)
    }

    public func getDocuments(source: FirestoreSource) async throws -> QuerySnapshot {
        try await awaitValue { getDocuments(source: source, completion: $0) }
    }
}

extension CollectionReference {
    /// Adds a document with a generated ID and returns its reference once the write completes.
    @discardableResult
    public func addDocument(data: [String: Any]) async throws -> DocumentReference {
        var reference: DocumentReference?
        try await awaitCompletion { reference = addDocument(data: data, completion: $0) }
        return reference!
    }
}

extension WriteBatch {
    public func commit() async throws {
        try await awaitCompletion { commit(completion: $0) }
    }
}
