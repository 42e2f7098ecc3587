import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// One-time reads from a chosen source, and transactions, through the public API on the emulator.
    @Suite("Sources and transactions over gRPC", .serialized)
    struct EndToEndSourceTests {
        @Test("getDocument/getDocuments with .server, .cache and .default follow Firebase, online and offline")
        func getSources() async throws {
            let project = "cairn-e2e-sources"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            _ = try await rpc.commit([
                .set(try DocumentKey(parsing: "items/a"), value: ObjectValue(["v": .string("server")])),
                .set(try DocumentKey(parsing: "items/b"), value: ObjectValue(["v": .string("b")])),
            ])
            let app = EmulatorApp(project: project, emulator: try await FirestoreEmulator.shared())
            let a = app.db.document("items/a")

            await expectFirestoreError(.unavailable, containing: "Failed to get document from cache") {
                try await withHangGuard("getDocument(.cache)") { try await a.getDocument(source: .cache) }
            }
            let fromServer = try await withHangGuard("getDocument(.server)") {
                try await a.getDocument(source: .server)
            }
            #expect(fromServer.get("v") as? String == "server" && !fromServer.metadata.isFromCache)
            let missing = try await withHangGuard("getDocument(.server) of a missing document") {
                try await app.db.document("items/missing").getDocument(source: .server)
            }
            #expect(!missing.exists && !missing.metadata.isFromCache)
            _ = try await rpc.commit([
                .set(try DocumentKey(parsing: "items/a"), value: ObjectValue(["v": .string("changed")]))
            ])
            let changed = try await withHangGuard("getDocument(.default)") { try await a.getDocument(source: .default) }
            #expect(changed.get("v") as? String == "changed" && !changed.metadata.isFromCache)
            let query = try await withHangGuard("getDocuments(.server)") {
                try await app.db.collection("items").getDocuments(source: .server)
            }
            #expect(query.count == 2 && !query.metadata.isFromCache)

            // A listener keeps the results in the (eagerly collected) memory cache for the cache reads.
            let registration = app.db.collection("items").addSnapshotListener { _, _ in }
            let cachedQuery = try await waitForCachedResults(app.db.collection("items"), count: 2)
            #expect(cachedQuery.metadata.isFromCache)
            let cached = try await withHangGuard("getDocument(.cache)") { try await a.getDocument(source: .cache) }
            #expect(cached.get("v") as? String == "changed" && cached.metadata.isFromCache)

            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            await expectFirestoreError(.unavailable, containing: "Failed to get document from server") {
                try await withHangGuard("offline getDocument(.server)") { try await a.getDocument(source: .server) }
            }
            await expectFirestoreError(.unavailable, containing: "Failed to get documents from server") {
                try await withHangGuard("offline getDocuments(.server)") {
                    try await app.db.collection("items").getDocuments(source: .server)
                }
            }
            let offline = try await withHangGuard("offline getDocument(.default)") { try await a.getDocument() }
            #expect(offline.get("v") as? String == "changed" && offline.metadata.isFromCache)
            registration.remove()
            await app.tearDown()
        }

        @Test("Two concurrent transactions on a counter both take effect; offline a transaction fails unavailable")
        func transactions() async throws {
            let project = "cairn-e2e-transactions"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            _ = try await rpc.commit([
                .set(try DocumentKey(parsing: "counters/c"), value: ObjectValue(["n": .integer(40)]))
            ])
            let emulator = try await FirestoreEmulator.shared()
            let apps = (0..<2).map { _ in EmulatorApp(project: project, emulator: emulator) }
            // Both first attempts read before either commits, so one of them must find the counter changed and retry.
            let barrier = ReadBarrier(parties: apps.count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for app in apps {
                    group.addTask {
                        try await withHangGuard("runTransaction") {
                            _ = try await app.db.runTransaction { transaction, errorPointer in
                                incrementCounter(app.db.document("counters/c"), transaction, errorPointer, barrier)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stored = try await serverDocument(rpc, "counters/c")
            #expect(stored.data.fields["n"] == .integer(42), "both increments: \(stored.data)")
            #expect(barrier.attempts >= 3, "a transaction that read a stale counter was retried")

            let app = apps[0]
            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            do {
                try await withHangGuard("offline runTransaction") {
                    _ = try await app.db.runTransaction { transaction, errorPointer in
                        incrementCounter(app.db.document("counters/c"), transaction, errorPointer, nil)
                    }
                }
                Issue.record("a transaction ran with the network disabled")
            } catch {
                let error = error as NSError
                #expect(error.domain == FirestoreErrorDomain, "\(error)")
                #expect(error.code == FirestoreErrorCode.Code.unavailable.rawValue, "\(error)")
            }
            #expect(try await serverDocument(rpc, "counters/c").data.fields["n"] == .integer(42))
            for app in apps { await app.tearDown() }
        }

        /// Waits until the cache alone answers `query` with `count` documents (a listener is filling it).
        private func waitForCachedResults(_ query: Cairn.Query, count: Int) async throws -> QuerySnapshot {
            for _ in 0..<3000 {
                let snapshot = try await query.getDocuments(source: .cache)
                if snapshot.count == count { return snapshot }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("the cache never held \(count) results")
            throw FirestoreErrorCode(.deadlineExceeded, "the cache never held \(count) results")
        }
    }
}

/// Reads the counter's `n` in the transaction and writes `n + 1`; with a barrier, a first attempt waits after its
/// read until every transaction has read.
private func incrementCounter(
    _ counter: DocumentReference, _ transaction: Transaction, _ errorPointer: NSErrorPointer, _ barrier: ReadBarrier?
) -> Any? {
    let snapshot: DocumentSnapshot
    do {
        snapshot = try transaction.getDocument(counter)
    } catch {
        errorPointer?.pointee = error as NSError
        return nil
    }
    barrier?.arrive()
    let n = snapshot.get("n") as? Int ?? 0
    transaction.updateData(["n": n + 1], forDocument: counter)
    return n + 1
}

/// Holds the first `parties` transaction reads until all of them happened (a hang guard releases it after 60 s);
/// later reads (retries) pass. Counts every read.
private final class ReadBarrier: Sendable {
    private let parties: Int
    private let reads = Mutex(0)
    private let released = DispatchSemaphore(value: 0)

    init(parties: Int) { self.parties = parties }

    /// How many reads arrived: one per transaction attempt.
    var attempts: Int { reads.withLock { $0 } }

    func arrive() {
        let arrival = reads.withLock { reads in
            reads += 1
            return reads
        }
        if arrival == parties {
            for _ in 1..<parties { released.signal() }
        } else if arrival < parties {
            _ = released.wait(timeout: .now() + 60)
        }
    }
}
