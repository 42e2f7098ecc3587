import CairnDatabaseCore
import Foundation

/// Transactions: the block runs on the current local value (nil when nothing is cached: handle it), its result is
/// written (shown to observers unless `withLocalEvents` is false) and sent with the hash of the value it read; when
/// the server's value differs (`datastale`) the block runs again on the newer value, up to 25 times. Transactions
/// are not persisted. Offline the write stays queued and the completion waits. A `setValue` or `updateChildValues`
/// overlapping the path before the server answered aborts it with `set` if the server finds it stale (Firebase's
/// "The transaction was overridden by a subsequent set"). On an invalid reference or under
/// `.info` the completion gets the `invalid_argument` error (committed false, no snapshot) and the block never runs.
extension DatabaseReference {
    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult) {
        runTransactionBlock(block, andCompletionBlock: nil, withLocalEvents: true)
    }

    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult,
                                    andCompletionBlock completionBlock: ((Error?, Bool, DataSnapshot?) -> Void)?) {
        runTransactionBlock(block, andCompletionBlock: completionBlock, withLocalEvents: true)
    }

    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult,
                                    andCompletionBlock completionBlock: ((Error?, Bool, DataSnapshot?) -> Void)?,
                                    withLocalEvents localEvents: Bool) {
        let queue = db.callbackQueue
        let key = path.back
        nonisolated(unsafe) let completion = completionBlock
        do throws(DatabaseCoreError) {
            try checkWritable("runTransactionBlock:")
        } catch {
            let invalid = DatabaseErrors.invalidArgument(error)
            guard completion != nil else {
                return UnhandledErrors.report("runTransactionBlock at \(path) failed: \(invalid.localizedDescription)")
            }
            return queue.async { completion?(invalid, false, nil) }
        }
        let update: (Node) -> TransactionDecision = { current in
            let holder = MutableData.Holder(current)
            guard let data = block(MutableData(holder: holder, path: .root, rootKey: key)).data else { return .abort }
            if let error = holder.error { return .failed(error) }
            return .commit(data.holder.node)
        }
        db.repo.runTransaction(at: path, applyLocally: localEvents, update: update) { [self] status, committed, node in
            guard completion != nil else { return }
            let snapshot = DataSnapshot(ref: self, node: node)
            let error = status.flatMap { DatabaseErrors.error($0) }
            queue.async { completion?(error, committed, snapshot) }
        }
    }

    /// Runs the transaction; returns whether it committed and the value, throws the failure.
    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult) async throws -> (Bool, DataSnapshot) {
        nonisolated(unsafe) let block = block
        return try await withCheckedThrowingContinuation { continuation in
            runTransactionBlock(block, andCompletionBlock: { error, committed, snapshot in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: (committed, snapshot!)) }
            })
        }
    }
}
