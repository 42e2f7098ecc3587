import CairnCore
import CairnModel
import Dispatch
import Foundation
import Synchronization

#if !canImport(ObjectiveC)
/// Where an update block reports its error (Foundation's `NSErrorPointer`, which Linux lacks):
/// `errorPointer?.pointee = error`.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif

/// One attempt of a transaction: reads that go to the server, then writes applied atomically only if nothing
/// read has changed meanwhile. Used inside ``Firestore/runTransaction(_:completion:)``.
///
/// ```swift
/// db.runTransaction({ transaction, errorPointer in
///     let snapshot: DocumentSnapshot
///     do { snapshot = try transaction.getDocument(counter) } catch {
///         errorPointer?.pointee = error as NSError
///         return nil
///     }
///     let count = snapshot.get("count") as? Int ?? 0
///     transaction.updateData(["count": count + 1], forDocument: counter)
///     return count + 1
/// }) { result, error in ... }
/// ```
///
/// Reads must come before writes. Invalid data in a write (Firebase raises an exception) fails the attempt with
/// `invalidArgument`, which is not retried.
public final class Transaction: @unchecked Sendable {
    private let firestore: Firestore
    private let context: OffQueueTransaction
    /// The first invalid write of this attempt.
    private let writeError = Mutex<FirestoreErrorCode?>(nil)

    init(firestore: Firestore, context: OffQueueTransaction) {
        self.firestore = firestore
        self.context = context
    }

    /// Reads `document` from the server (blocking the update block's thread until the answer comes).
    ///
    /// - Throws: the read's error as a ``FirestoreErrorCode`` (offline: `unavailable`).
    public func getDocument(_ document: DocumentReference) throws -> DocumentSnapshot {
        let key = try checked(document).get()
        let semaphore = DispatchSemaphore(value: 0)
        let answer = Mutex<Result<[CairnModel.Document], FirestoreErrorCode>?>(nil)
        context.lookup([key]) { result in
            answer.withLock { $0 = result }
            semaphore.signal()
        }
        semaphore.wait()
        let documents = try answer.withLock { $0 }!.get()
        let found = documents.first { $0.key == key }
        return DocumentSnapshot(
            reference: document, document: found, metadata: SnapshotMetadata(hasPendingWrites: false, isFromCache: false))
    }

    /// Replaces the document with `data`.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference) -> Transaction {
        add(document) { () throws(FirestoreErrorCode) in try document.setMutation(data, merge: false, mergeFields: nil) }
    }

    /// Replaces or merges into the document.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool) -> Transaction {
        add(document) { () throws(FirestoreErrorCode) in try document.setMutation(data, merge: merge, mergeFields: nil) }
    }

    /// Writes only `mergeFields` of `data`.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, mergeFields: [Any]) -> Transaction {
        add(document) { () throws(FirestoreErrorCode) in
            try document.setMutation(data, merge: true, mergeFields: mergeFields)
        }
    }

    /// Updates fields of an existing document.
    @discardableResult
    public func updateData(_ fields: [AnyHashable: Any], forDocument document: DocumentReference) -> Transaction {
        add(document) { () throws(FirestoreErrorCode) in try document.updateMutation(fields) }
    }

    /// Deletes the document.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> Transaction {
        add(document) { () throws(FirestoreErrorCode) in try document.deleteMutation() }
    }

    /// The error of the attempt's first invalid write, if any.
    var firstWriteError: FirestoreErrorCode? { writeError.withLock { $0 } }

    private func checked(_ document: DocumentReference) -> Result<DocumentKey, FirestoreErrorCode> {
        guard document.firestore === firestore else {
            return .failure(FirestoreErrorCode(
                .invalidArgument, "Provided document reference is from a different Cloud Firestore instance."))
        }
        return document.key
    }

    private func add(_ document: DocumentReference, _ build: () throws(FirestoreErrorCode) -> Mutation) -> Transaction {
        do throws(FirestoreErrorCode) {
            _ = try checked(document).get()
            context.write(try build())
        } catch {
            writeError.withLock { $0 = $0 ?? error }
        }
        return self
    }
}

/// Options of ``Firestore/runTransaction(with:block:completion:)``.
///
/// ```swift
/// let options = TransactionOptions()
/// options.maxAttempts = 3
/// ```
public final class TransactionOptions: @unchecked Sendable {
    /// How many times the transaction is attempted before it fails (default 5, at least 1).
    public var maxAttempts: Int = 5

    public init() {}
}
