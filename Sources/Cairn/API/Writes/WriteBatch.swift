import CairnModel
import Foundation
import Synchronization

/// Several writes applied atomically: all or none. Offline, the batch applies to the cache at once and is sent
/// when the network is back.
///
/// ```swift
/// let batch = db.batch()
/// batch.setData(["name": "Ada"], forDocument: db.document("users/ada"))
/// batch.updateData(["count": FieldValue.increment(Int64(1))], forDocument: db.document("stats/users"))
/// batch.deleteDocument(db.document("users/old"))
/// try await batch.commit()
/// ```
///
/// At most 500 writes (each field transform such as `FieldValue.increment` counts as one more). Invalid data, a
/// reference from another Firestore instance, a write after `commit()` or too many writes are reported as
/// `invalidArgument` to `commit`'s completion (Firebase raises an exception at the call); nothing is written then.
public final class WriteBatch: @unchecked Sendable {
    /// The most writes a batch holds, as the server counts them.
    public static let maxWrites = 500

    private struct State {
        var mutations: [Mutation] = []
        var error: FirestoreErrorCode?
        var committed = false
    }

    private let firestore: Firestore
    private let state = Mutex(State())

    init(firestore: Firestore) {
        self.firestore = firestore
    }

    /// Replaces the document with `data`.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference) -> WriteBatch {
        add(document) { () throws(FirestoreErrorCode) in try document.setMutation(data, merge: false, mergeFields: nil) }
    }

    /// Replaces (`merge: false`) or merges into (`merge: true`) the document.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool) -> WriteBatch {
        add(document) { () throws(FirestoreErrorCode) in try document.setMutation(data, merge: merge, mergeFields: nil) }
    }

    /// Writes only `mergeFields` (dotted `String`s or ``FieldPath``s) of `data`.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, mergeFields: [Any]) -> WriteBatch {
        add(document) { () throws(FirestoreErrorCode) in
            try document.setMutation(data, merge: true, mergeFields: mergeFields)
        }
    }

    /// Updates fields of an existing document.
    @discardableResult
    public func updateData(_ fields: [AnyHashable: Any], forDocument document: DocumentReference) -> WriteBatch {
        add(document) { () throws(FirestoreErrorCode) in try document.updateMutation(fields) }
    }

    /// Deletes the document.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> WriteBatch {
        add(document) { () throws(FirestoreErrorCode) in try document.deleteMutation() }
    }

    /// Commits the batch; `completion` runs when the server has applied it (or it failed).
    public func commit(completion: ((Error?) -> Void)? = nil) {
        let outcome = state.withLock { state -> Result<[Mutation], FirestoreErrorCode> in
            if state.committed { return .failure(Self.committedError) }
            state.committed = true
            if let error = state.error { return .failure(error) }
            let writes = state.mutations.reduce(0) { $0 + 1 + $1.fieldTransforms.count }
            if writes > Self.maxWrites {
                return .failure(FirestoreErrorCode(
                    .invalidArgument,
                    "A write batch can contain at most \(Self.maxWrites) writes, but this one has \(writes) (each "
                        + "field transform counts as one more write); split it into several batches."))
            }
            return .success(state.mutations)
        }
        switch outcome {
        case .failure(let error): firestore.complete(completion, error)
        case .success(let mutations): firestore.write(mutations, completion: completion)
        }
    }

    static let committedError = FirestoreErrorCode(
        .failedPrecondition, "A write batch can no longer be used after commit() has been called.")

    private func add(_ document: DocumentReference, _ build: () throws(FirestoreErrorCode) -> Mutation) -> WriteBatch {
        var built: Result<Mutation, FirestoreErrorCode>
        if document.firestore !== firestore {
            built = .failure(FirestoreErrorCode(
                .invalidArgument, "Provided document reference is from a different Cloud Firestore instance."))
        } else {
            do throws(FirestoreErrorCode) {
                built = .success(try build())
            } catch {
                built = .failure(error)
            }
        }
        state.withLock { state in
            if state.committed {
                state.error = state.error ?? Self.committedError
                return
            }
            switch built {
            case .success(let mutation): state.mutations.append(mutation)
            case .failure(let error): state.error = state.error ?? error
            }
        }
        return self
    }
}

extension Firestore {
    /// A new, empty write batch.
    public func batch() -> WriteBatch { WriteBatch(firestore: self) }
}
