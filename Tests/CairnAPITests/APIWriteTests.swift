import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API batches, transactions, network and lifecycle calls")
struct APIWriteTests {
    @Test("A batch commits its writes as one atomic write; invalid data fails the commit and writes nothing")
    func batches() async throws {
        let env = APITestEnvironment()
        let batch = env.db.batch()
        batch.setData(["a": 1], forDocument: env.db.document("c/1"))
            .updateData(["n": FieldValue.increment(Int64(1))], forDocument: env.db.document("c/2"))
            .deleteDocument(env.db.document("c/3"))
        try await batch.commit()
        let writes = try await env.writes()
        #expect(writes.count == 1)
        #expect(writes.first?.map(\.key.description) == ["c/1", "c/2", "c/3"])
        await #expect(throws: FirestoreErrorCode.self) { try await batch.commit() }

        let bad = env.db.batch()
        bad.setData(["a": 1], forDocument: env.db.document("c/1"))
        bad.setData(["a": [[1]]], forDocument: env.db.document("c/2"))
        await #expect(throws: FirestoreErrorCode.self) { try await bad.commit() }
        let foreign = env.db.batch().deleteDocument(APITestEnvironment().db.document("c/1"))
        await #expect(throws: FirestoreErrorCode(.invalidArgument, "Provided document reference is from a different Cloud Firestore instance.")) {
            try await foreign.commit()
        }
        #expect(try await env.writes().count == 1)
    }

    @Test("A batch holds at most 500 writes, each transform counting as one more; an empty batch commits at once")
    func batchLimit() async throws {
        let env = APITestEnvironment()
        let full = env.db.batch()
        for i in 0..<500 { full.deleteDocument(env.db.document("c/\(i)")) }
        try await full.commit()
        let over = env.db.batch()
        for i in 0..<499 { over.deleteDocument(env.db.document("c/\(i)")) }
        over.setData(["t": FieldValue.serverTimestamp()], forDocument: env.db.document("c/x"))
        do {
            try await over.commit()
            Issue.record("a 501-write batch was committed")
        } catch let error as FirestoreErrorCode {
            #expect(error.message.hasPrefix("A write batch can contain at most 500 writes, but this one has 501"))
        }
        try await env.db.batch().commit()
        #expect(try await env.writes().map(\.count) == [500])
    }

    @Test("Write errors from the server reach the completion on the callback queue")
    func writeErrors() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock { $0.writeError = FirestoreErrorCode(.permissionDenied, "denied") }
        let seen = Recorder<(FirestoreErrorCode?, Bool)>()
        env.db.document("c/d").setData(["a": 1]) { error in seen.append((error as? FirestoreErrorCode, env.isOnCallbackQueue)) }
        try await env.db.waitForPendingWrites()
        env.flush()
        #expect(seen.values.first?.0?.code == .permissionDenied)
        #expect(seen.values.first?.1 == true)
        env.server.script.withLock { $0.writeError = nil }
        let added = env.db.collection("c").addDocument(data: ["x": 1], completion: nil)
        #expect(try await env.writes().last?.first?.key.documentID == added.documentID)
    }

    @Test("Transactions read from the server, buffer writes, retry aborted commits and return the block's result")
    func transactions() async throws {
        let env = APITestEnvironment()
        let counter = env.db.document("counters/a")
        let stored = fakeDocument("counters/a", ["n": .integer(4)])
        env.server.script.withLock { script in
            script.server = [stored.key: stored]
            script.failingCommits = 2
        }
        let result = try await env.db.runTransaction { transaction, errorPointer in
            do {
                let snapshot = try transaction.getDocument(counter)
                let n = snapshot.get("n") as? Int ?? 0
                transaction.updateData(["n": n + 1], forDocument: counter)
                return n + 1
            } catch {
                errorPointer?.pointee = error as NSError
                return nil
            }
        }
        #expect(result as? Int == 5)
        let writes = env.server.commits
        #expect(env.server.script.withLock { $0.failingCommits } == 0, "two aborted attempts before the third")
        #expect(writes.count == 1 && writes[0].first?.key == stored.key)
        #expect(writes.first?.first?.precondition == .updateTime(stored.version), "the write checks the version read")
    }

    @Test("Offline transactions fail with unavailable; the block's own error and invalid writes fail them too")
    func transactionFailures() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock { $0.server = nil }
        let ref = env.db.document("c/d")
        do {
            _ = try await env.db.runTransaction { transaction, errorPointer in
                do { _ = try transaction.getDocument(ref) } catch { errorPointer?.pointee = error as NSError }
                return nil
            }
            Issue.record("an offline transaction succeeded")
        } catch let error as NSError {
            #expect(error.domain == FirestoreErrorDomain && error.code == FirestoreErrorCode.Code.unavailable.rawValue)
        }
        let mine = NSError(domain: "app", code: 7)
        await #expect(throws: NSError.self) {
            _ = try await env.db.runTransaction { _, errorPointer in
                errorPointer?.pointee = mine
                return nil
            }
        }
        do {
            _ = try await env.db.runTransaction { transaction, _ in
                transaction.setData(["a": URL(fileURLWithPath: "/")], forDocument: ref)
                return nil
            }
            Issue.record("a transaction with invalid data succeeded")
        } catch let error as FirestoreErrorCode {
            #expect(error.message == "Unsupported type: URL (found in field a)")
        }
        let options = TransactionOptions()
        options.maxAttempts = 0
        await #expect(throws: FirestoreErrorCode.self) {
            _ = try await env.db.runTransaction(with: options) { _, _ in nil }
        }
    }

    @Test("Transaction writes are validated as other writes: too deep, even 100,000 levels, is invalidArgument")
    func transactionWriteValidation() async throws {
        let env = APITestEnvironment()
        let ref = env.db.document("c/d")
        for levels in [21, 100_000] {
            // The blocks capture the holder, not the data, so that the data is released here, level by level.
            let holder = DeepDataHolder(DeepData.nested(levels))
            do {
                _ = try await env.db.runTransaction { transaction, _ in
                    transaction.setData(["f": holder.value!], forDocument: ref)
                    return nil
                }
                Issue.record("a transaction writing \(levels) levels succeeded")
            } catch {
                let refused = error as? FirestoreErrorCode
                #expect(refused?.code == .invalidArgument && refused?.message.contains("exceeds the maximum depth of 20") == true)
            }
            await #expect(throws: FirestoreErrorCode.self) {
                _ = try await env.db.runTransaction { transaction, _ in
                    transaction.updateData(["a.b": holder.value!], forDocument: ref)
                    return nil
                }
            }
            DeepData.release(&holder.value)
        }
        let deepPath = Cairn.FieldPath((0..<22).map { "p\($0)" })
        await #expect(throws: FirestoreErrorCode.self) {
            _ = try await env.db.runTransaction { transaction, _ in
                transaction.updateData([deepPath: 1], forDocument: ref)
                return nil
            }
        }
        #expect(env.server.commits.isEmpty)
    }

    @Test("Network calls reach the core: a write made offline reaches the server after enableNetwork; bad index JSON fails")
    func clientCalls() async throws {
        let env = APITestEnvironment()
        try await env.db.disableNetwork()
        let acknowledged = Recorder<Error?>()
        env.db.document("c/offline").setData(["a": 1]) { acknowledged.append($0) }
        try await env.db.setIndexConfiguration(#"{"indexes": [], "fieldOverrides": []}"#)
        await #expect(throws: FirestoreErrorCode.self) { try await env.db.setIndexConfiguration("{not json") }
        env.flush()
        #expect(env.server.writes.isEmpty && acknowledged.values.isEmpty, "nothing is sent while offline")
        try await env.db.enableNetwork()
        #expect(try await env.writes().map { $0.map(\.key.description) } == [["c/offline"]])
        env.flush()
        #expect(acknowledged.values.count == 1 && acknowledged.values.first! == nil)
    }

    @Test("persistentCacheIndexManager exists only for persistent caches, and is one object per instance")
    func indexManager() throws {
        let memory = APITestEnvironment()
        #expect(memory.db.persistentCacheIndexManager == nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        let persistent = APITestEnvironment { settings in
            settings.cacheSettings = PersistentCacheSettings(sizeBytes: 2_000_000, directory: directory)
        }
        let manager = try #require(persistent.db.persistentCacheIndexManager)
        manager.enableIndexAutoCreation()
        manager.disableIndexAutoCreation()
        manager.deleteAllIndexes()
        #expect(persistent.db.persistentCacheIndexManager === manager)
        persistent.db.terminate(completion: nil)
    }

    @Test("clearPersistence refuses a running instance and deletes the cache directory after terminate")
    func clearPersistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let env = APITestEnvironment { settings in
            settings.cacheSettings = PersistentCacheSettings(sizeBytes: 2_000_000, directory: directory)
        }
        try await env.db.disableNetwork()
        do {
            try await env.db.clearPersistence()
            Issue.record("cleared a running instance")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .failedPrecondition)
        }
        #expect(FileManager.default.fileExists(atPath: directory.path))
        try await env.db.terminate()
        try await env.db.clearPersistence()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
