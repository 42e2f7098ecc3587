import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import Synchronization
import Testing
@testable import CairnCore

@Suite("Transactions: preconditions from reads, retries")
struct SyncEngineTransactionTests {
    typealias F = CoreFixtures

    /// A server with scripted answers: lookups return `documents`, commits fail with the queued errors first.
    final class ScriptedDatastore: Datastore, @unchecked Sendable {
        let databaseID = DatabaseID(projectID: "test-project")
        var documents: [DocumentKey: Document] = [:]
        var commitErrors: [FirestoreErrorCode] = []
        var commits: [[Mutation]] = []

        func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream { SilentDatastore.Stream() }
        func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream { SilentDatastore.Stream() }
        func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
            completion(.success(keys.map { documents[$0] ?? Document(key: $0, state: .noDocument, version: TargetData.noSnapshotVersion) }))
        }
        func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
            completion(.failure(SilentDatastore.unreachable))
        }
        func runAggregateQuery(
            _ query: CairnModel.Query, aggregates: [AggregateField],
            completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
        ) {
            completion(.failure(SilentDatastore.unreachable))
        }
        func commit(
            mutations: [Mutation], transactionID: [UInt8]?,
            completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
        ) {
            commits.append(mutations)
            if !commitErrors.isEmpty { return completion(.failure(commitErrors.removeFirst())) }
            completion(.success(CommitResponse(commitVersion: CairnModel.Timestamp(seconds: 9, nanoseconds: 0), results: [])))
        }
        func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
            completion(.failure(SilentDatastore.unreachable))
        }
        func rollback(transactionID: [UInt8]) {}
    }

    private func run(
        _ datastore: ScriptedDatastore, write: @escaping @Sendable (TransactionAttempt) -> Void
    ) throws -> (result: Result<Int, FirestoreErrorCode>?, attempts: Int) {
        let queue = AsyncQueue.manual()
        let client = try FirestoreClient(datastore: datastore, persistence: .memory, queue: queue)
        let attempts = Mutex(0)
        let outcome = Mutex<Result<Int, FirestoreErrorCode>?>(nil)
        client.transaction(updateFunction: { (transaction: TransactionAttempt, done: @escaping (Result<Int, FirestoreErrorCode>) -> Void) in
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            transaction.lookup([F.key("rooms/a"), F.key("rooms/b")]) { _ in
                write(transaction)
                done(.success(attempt))
            }
        }, completion: { result in outcome.withLock { $0 = result } })
        queue.drain()
        return (outcome.withLock { $0 }, attempts.withLock { $0 })
    }

    @Test("writes carry the version read; unwritten reads are verified; missing documents must stay missing")
    func preconditions() throws {
        let datastore = ScriptedDatastore()
        datastore.documents[F.key("rooms/a")] = F.document("rooms/a", version: 7)
        let (result, _) = try run(datastore) { $0.write(.set(F.key("rooms/a"), value: ObjectValue())) }
        #expect(try result?.get() == 1)
        let commit = try #require(datastore.commits.first)
        #expect(commit.map(\.precondition) == [.updateTime(CairnModel.Timestamp(seconds: 7, nanoseconds: 0)), .exists(false)])
        #expect(commit.map(\.key) == [F.key("rooms/a"), F.key("rooms/b")])
    }

    @Test("an aborted commit runs the update function again; a permanent error does not")
    func retries() throws {
        let datastore = ScriptedDatastore()
        datastore.commitErrors = [FirestoreErrorCode(.aborted, "contention")]
        let (result, attempts) = try run(datastore) { $0.write(.delete(F.key("rooms/a"))) }
        #expect(attempts == 2)
        #expect(try result?.get() == 2)
        let denied = ScriptedDatastore()
        denied.commitErrors = [FirestoreErrorCode(.permissionDenied, "no")]
        let (failure, deniedAttempts) = try run(denied) { $0.write(.delete(F.key("rooms/a"))) }
        #expect(deniedAttempts == 1)
        #expect(throws: FirestoreErrorCode.self) { try failure?.get() }
    }

    @Test("updating a document read as missing fails without committing")
    func updateOfMissingDocument() throws {
        let datastore = ScriptedDatastore()
        let (result, _) = try run(datastore) {
            $0.write(.patch(F.key("rooms/b"), value: ObjectValue(), mask: FieldMask([])))
        }
        guard case .failure(let error) = result else {
            Issue.record("the transaction committed")
            return
        }
        #expect(error.message == "Can't update a document that doesn't exist.")
        #expect(datastore.commits.isEmpty)
    }
}
