/// What a transaction's update function decided for the current value: write a new value, abort, or fail with an
/// invalid value.
package enum TransactionDecision {
    case commit(Node)
    case abort
    case failed(DatabaseCoreError)
}

/// Transactions (Firebase's `startTransactionOnPath`): run the update function on the local value, apply its
/// result as a write (visible when `applyLocally`), and send it with the hash of the value it started from. On
/// `datastale` the write is reverted and the function runs again on the newer local value, up to 25 retries, then
/// the transaction fails with `maxretry`. Any other status fails it (`write_canceled` when purged). Offline, the
/// write stays queued. A `setValue` or `updateChildValues` at, above or below its path while its put is unanswered
/// marks it (Firebase's `abortTransactionsAtPath` on a sent transaction): an `ok` still commits it, `datastale`
/// aborts it with `set` instead of running it again.
///
/// ```swift
/// repo.runTransaction(at: path, applyLocally: true, update: { .commit(increment($0)) }) { status, committed, node in }
/// ```
extension Repo {
    package static let maxTransactionRetries = 25
    /// The reason a transaction overridden by a `setValue` or `updateChildValues` reports (Firebase's text).
    package static let overriddenBySetReason = "The transaction was overridden by a subsequent set"

    /// `completion` gets nil on success or abort, the failure status otherwise; whether the value was written;
    /// the value at the path (the value written, server values resolved, when it committed).
    package func runTransaction(at path: DatabasePath, applyLocally: Bool, update: @escaping (Node) -> TransactionDecision,
                                completion: @escaping (WriteStatus?, Bool, Node) -> Void) {
        onQueue { [self] in
            let listener = TransactionListener()
            let query = QuerySpec(path: path)
            deliver(syncTree.addEventRegistration(listener, for: query))
            let run = TransactionRun(path: path, applyLocally: applyLocally, update: update) { [weak self] status, committed, node in
                self?.deliver(self?.syncTree.removeEventRegistration(listener, for: query) ?? [])
                completion(status, committed, node)
            }
            runningTransactions.append(run)
            attempt(run, retries: 0)
        }
    }

    /// Marks every running transaction at, above or below `path` to abort with `set` if its put comes back
    /// `datastale` (an `ok` still commits it, as in Firebase).
    func abortTransactions(overlapping path: DatabasePath) {
        for run in runningTransactions where run.path.contains(path) || path.contains(run.path) {
            run.isOverriddenBySet = true
        }
    }

    private func complete(_ run: TransactionRun, _ status: WriteStatus?, _ committed: Bool, _ node: Node) {
        runningTransactions.removeAll { $0 === run }
        run.finish(status, committed, node)
    }

    private func attempt(_ run: TransactionRun, retries: Int) {
        let current = syncTree.calcCompleteEventCache(run.path) ?? .empty
        switch run.update(current) {
        case .abort:
            complete(run, nil, false, current)
        case .failed(let error):
            complete(run, .failed(status: "invalid_argument", reason: error.message), false, current)
        case .commit(let node):
            let resolved = ServerValues.resolve(node, existing: current, timestamp: serverTimestamp())
            let writeId = nextWriteId
            nextWriteId += 1
            deliver(syncTree.applyUserOverwrite(run.path, resolved, writeId: writeId, visible: run.applyLocally))
            track("p \(run.path) (transaction)", { connection?.put(run.path, node.exportJSON(), hash: current.hash, onComplete: $0) }) { [self] status in
                finishAttempt(run, writeId, resolved, status, retries: retries)
            }
        }
    }

    private func finishAttempt(_ run: TransactionRun, _ writeId: Int, _ written: Node, _ status: WriteStatus, retries: Int) {
        switch status {
        case .ok:
            deliver(syncTree.ackUserWrite(writeId))
            complete(run, nil, true, written)
        case .failed(let code, _) where code == "datastale" && run.isOverriddenBySet:
            deliver(syncTree.ackUserWrite(writeId, revert: true))
            complete(run, .failed(status: "set", reason: Repo.overriddenBySetReason), false, syncTree.calcCompleteEventCache(run.path) ?? .empty)
        case .failed(let code, _) where code == "datastale" && retries < Repo.maxTransactionRetries:
            deliver(syncTree.ackUserWrite(writeId, revert: true))
            attempt(run, retries: retries + 1)
        case .failed(let code, let reason):
            deliver(syncTree.ackUserWrite(writeId, revert: true))
            let final: WriteStatus = code == "datastale" ? .failed(status: "maxretry", reason: nil) : .failed(status: code, reason: reason)
            complete(run, final, false, syncTree.calcCompleteEventCache(run.path) ?? .empty)
        }
    }
}

/// One transaction: its path, update function and completion, and whether a later write overrode it.
final class TransactionRun {
    let path: DatabasePath
    let applyLocally: Bool
    let update: (Node) -> TransactionDecision
    let finish: (WriteStatus?, Bool, Node) -> Void
    var isOverriddenBySet = false

    init(path: DatabasePath, applyLocally: Bool, update: @escaping (Node) -> TransactionDecision,
         finish: @escaping (WriteStatus?, Bool, Node) -> Void) {
        self.path = path
        self.applyLocally = applyLocally
        self.update = update
        self.finish = finish
    }
}

/// The hidden registration that keeps a transaction's path listened to, so server data flows in for retries.
private final class TransactionListener: EventRegistration {
    func responds(to type: EventType) -> Bool { false }
    func matches(_ other: any EventRegistration) -> Bool { other === self }
    var hasAnyCallback: Bool { true }
    var wantsCancelEvents: Bool { false }
}
