/// Snapshot listeners as `AsyncSequence`s, as Firebase's Swift API has them (`snapshots`,
/// `snapshots(includeMetadataChanges:)`). Each iteration registers a listener; leaving the loop (or cancelling
/// the task) removes it. A listener error ends the sequence by throwing.
///
/// ```swift
/// for try await snapshot in db.collection("cities").snapshots {
///     print(snapshot.count)
/// }
/// for try await snapshot in db.document("users/ada").snapshots(includeMetadataChanges: true) { ... }
/// ```
extension Query {
    /// The query's snapshots, without metadata-only changes.
    public var snapshots: QuerySnapshotsSequence { snapshots(includeMetadataChanges: false) }

    /// The query's snapshots.
    public func snapshots(includeMetadataChanges: Bool) -> QuerySnapshotsSequence {
        QuerySnapshotsSequence(self, includeMetadataChanges: includeMetadataChanges)
    }

    /// The `AsyncSequence` of a query's snapshots.
    public struct QuerySnapshotsSequence: AsyncSequence, Sendable {
        public typealias Element = QuerySnapshot

        private let query: Query
        private let includeMetadataChanges: Bool

        init(_ query: Query, includeMetadataChanges: Bool) {
            self.query = query
            self.includeMetadataChanges = includeMetadataChanges
        }

        public func makeAsyncIterator() -> AsyncThrowingStream<QuerySnapshot, Error>.AsyncIterator {
            let query = self.query
            let includeMetadataChanges = self.includeMetadataChanges
            return snapshotStream { query.addSnapshotListener(includeMetadataChanges: includeMetadataChanges, listener: $0) }
                .makeAsyncIterator()
        }
    }
}

extension DocumentReference {
    /// The document's snapshots, without metadata-only changes.
    public var snapshots: DocumentSnapshotsSequence { snapshots(includeMetadataChanges: false) }

    /// The document's snapshots.
    public func snapshots(includeMetadataChanges: Bool) -> DocumentSnapshotsSequence {
        DocumentSnapshotsSequence(self, includeMetadataChanges: includeMetadataChanges)
    }

    /// The `AsyncSequence` of a document's snapshots.
    public struct DocumentSnapshotsSequence: AsyncSequence, Sendable {
        public typealias Element = DocumentSnapshot

        private let reference: DocumentReference
        private let includeMetadataChanges: Bool

        init(_ reference: DocumentReference, includeMetadataChanges: Bool) {
            self.reference = reference
            self.includeMetadataChanges = includeMetadataChanges
        }

        public func makeAsyncIterator() -> AsyncThrowingStream<DocumentSnapshot, Error>.AsyncIterator {
            let reference = self.reference
            let includeMetadataChanges = self.includeMetadataChanges
            return snapshotStream { reference.addSnapshotListener(includeMetadataChanges: includeMetadataChanges, listener: $0) }
                .makeAsyncIterator()
        }
    }
}

/// A stream of the snapshots a listener receives: `listen` registers the listener; the first error ends the
/// stream by throwing, and ending the iteration removes the registration.
private func snapshotStream<Snapshot: Sendable>(
    _ listen: (@escaping (Snapshot?, Error?) -> Void) -> ListenerRegistration
) -> AsyncThrowingStream<Snapshot, Error> {
    AsyncThrowingStream { continuation in
        let registration = listen { snapshot, error in
            if let snapshot {
                continuation.yield(snapshot)
            } else {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in registration.remove() }
    }
}
