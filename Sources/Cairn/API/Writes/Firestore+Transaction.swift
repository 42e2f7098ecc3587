import CairnCore
import CairnModel
import Dispatch
import Foundation
import Synchronization

/// Transactions run online only: reads go to the server, and the commit fails if a document read has changed
/// since; the whole attempt is then retried (5 attempts by default). Offline the reads fail with `unavailable`
/// and so does the transaction.
///
/// ```swift
/// db.runTransaction({ transaction, errorPointer in
///     transaction.setData(["n": 1], forDocument: db.document("counters/a"))
///     return "done"
/// }) { result, error in print(result as? String ?? "", error ?? "") }
/// ```
///
/// The update block runs on a background queue (it may block on `getDocument`), possibly several times; the
/// completion runs once on the callback queue with the block's last result, or the error: the block's own error
/// when it set one through its error pointer.
extension Firestore {
    /// Runs `updateBlock` in a transaction with the default options.
    public func runTransaction(
        _ updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?, completion: @escaping (Any?, Error?) -> Void
    ) {
        runTransaction(with: nil, block: updateBlock, completion: completion)
    }

    /// Runs `updateBlock` in a transaction with `options` (`nil`: the defaults).
    public func runTransaction(
        with options: TransactionOptions?, block updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?,
        completion: @escaping (Any?, Error?) -> Void
    ) {
        let maxAttempts = options?.maxAttempts ?? 5
        let completionBox = UncheckedSendable(completion)
        guard maxAttempts >= 1 else {
            let error = FirestoreErrorCode(
                .invalidArgument, "Invalid maxAttempts: \(maxAttempts); a transaction needs at least one attempt.")
            deliver { completionBox.value(nil, error) }
            return
        }
        let client: FirestoreClient
        switch self.client() {
        case .failure(let error):
            deliver { completionBox.value(nil, error) }
            return
        case .success(let started):
            client = started
        }
        let block = UncheckedSendable(updateBlock)
        let outcome = Mutex<AttemptOutcome>(AttemptOutcome())
        client.runTransaction(
            maxAttempts: maxAttempts,
            update: { context, done in
                DispatchQueue.global().async {
                    let transaction = Transaction(firestore: self, context: context)
                    var userError: NSError?
                    let result = block.value(transaction, &userError)
                    let attempt = AttemptOutcome(result: UncheckedSendable(result), userError: userError.map(UncheckedSendable.init))
                    outcome.withLock { $0 = attempt }
                    if let userError {
                        done(Self.firestoreError(userError))
                    } else {
                        done(transaction.firstWriteError)
                    }
                }
            },
            completion: { error in
                let last = outcome.withLock { $0 }
                self.deliver {
                    if let error {
                        completionBox.value(nil, last.userError?.value ?? error)
                    } else {
                        completionBox.value(last.result?.value ?? nil, nil)
                    }
                }
            })
    }

    /// The result of the last attempt's update block.
    private struct AttemptOutcome: Sendable {
        var result: UncheckedSendable<Any?>?
        var userError: UncheckedSendable<NSError>?
    }

    /// A user's error as the core sees it: a Firestore error keeps its code, anything else is `unknown`.
    private static func firestoreError(_ error: NSError) -> FirestoreErrorCode {
        if error.domain == FirestoreErrorDomain, let code = FirestoreErrorCode.Code(rawValue: error.code) {
            return FirestoreErrorCode(code, error.localizedDescription)
        }
        return FirestoreErrorCode(.unknown, error.localizedDescription)
    }
}
