import CairnModel
import Foundation
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Structure-aware fuzzing of everything that reads a cache's records: each case mutates the records of a real
/// cache (``FuzzCorpus``, ``FuzzMutator``), writes them to a new log (valid checksums, so the damage reaches
/// the decoders, one batch per record or a few records per batch, sometimes with LSNs just under 2^62), then
/// inspects it as `cairn` does and opens it as an app does, reading, writing, collecting and compacting. No
/// case may trap, and every error must be a typed one with a message.
///
/// Seeds are fixed: case n always makes the same log. `CAIRN_FUZZ_ITERATIONS=5000` soaks longer;
/// `CAIRN_FUZZ_TRACE=1` prints each case before it runs, to name the one that trapped.
@Suite("Event decoder fuzzing")
struct EventDecoderFuzzTests {
    static var iterations: Int { ProcessInfo.processInfo.environment["CAIRN_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 300 }
    static var trace: Bool { ProcessInfo.processInfo.environment["CAIRN_FUZZ_TRACE"] == "1" }

    @Test("mutated records never trap replay, reads, writes, collection, compaction or inspection; errors are typed")
    func mutatedRecords() throws {
        // A memory file system where there is one: the cases write and sync hundreds of small logs.
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        let root = base + "/cairn-event-fuzz-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let seed = try FuzzCorpus.records(buildingIn: root + "/seed")
        #expect(Set(seed.map(\.kind)) == Set(EventKind.allCases.map(\.rawValue)), "the seed holds every event kind")
        var opened = 0, refused = 0
        for number in 0..<Self.iterations {
            var mutator = FuzzMutator(seed: 0xCA1B_0000 + UInt64(number))
            var records = seed
            let mutation = mutator.mutate(&records)
            let directory = root + "/case\(number)"
            let highLSNs = number % 8 == 7
            if Self.trace { FileHandle.standardError.write(Data("fuzz case \(number)\(highLSNs ? " (high LSNs)" : ""): \(mutation)\n".utf8)) }
            try FuzzLog.write(records, to: directory, batchSize: 1 + mutator.random.below(4), highLSNs: highLSNs)
            let run = FuzzRun(context: "case \(number) (\(mutation))")
            run.inspect(directory)
            if run.openAndUse(directory) { opened += 1 } else { refused += 1 }
            try FileManager.default.removeItem(atPath: directory)
        }
        // Both outcomes are common, or the mutations are too weak (or too strong) to test the decoders.
        #expect(opened >= Self.iterations / 10 && refused >= Self.iterations / 10, "opened \(opened), refused \(refused)")
    }
}

/// One fuzz case's checks: each step runs on its own, and an error it throws must be typed and explained.
struct FuzzRun {
    let context: String

    func step(_ name: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch let error as LocalStoreError {
            #expect(!error.message.isEmpty, "\(name): a LocalStoreError without a message, \(context)")
        } catch let error as InspectionError {
            #expect(!error.message.isEmpty, "\(name): an InspectionError without a message, \(context)")
        } catch {
            Issue.record("\(name) threw an untyped \(type(of: error)): \(error), \(context)")
        }
    }

    /// What `cairn inspect`, `dump`, `dump --json`, `stats`, `outbox`, `verify` and `indexes` read.
    func inspect(_ directory: String) {
        step("CacheInspector.open") {
            let inspector = try CacheInspector.open(at: directory)
            defer { inspector.close() }
            step("report") { _ = try inspector.report(threshold: 1 << 20) }
            step("statistics") { _ = try inspector.statistics(threshold: 1 << 20) }
            step("outbox") {
                for batch in try inspector.outbox() { _ = InspectionJSON.array(batch.writes + batch.baseWrites).render() }
            }
            step("verify") { _ = try inspector.verify() }
            step("indexReport") { _ = try inspector.indexReport() }
            step("compactionCandidates") { _ = try inspector.compactionCandidates(minimumDeadRatio: 0) }
            step("dump") {
                try inspector.forEachRecord { record in
                    _ = record.json.render()
                    _ = record.body.render()
                }
            }
        }
    }

    /// Opens the cache as an app does and uses every part of it; returns whether it opened.
    func openAndUse(_ directory: String) -> Bool {
        var opened = false
        step("LocalStore.open") {
            let store = try LocalStore.open(at: directory, configuration: FuzzCorpus.configuration)
            opened = true
            defer { step("close") { try store.close() } }
            var queries = [
                Query(path: ResourcePath(segments: ["users"])), Query(path: ResourcePath(segments: ["rooms"])),
                Query(path: .root, collectionGroup: "messages"), Query(path: ResourcePath(segments: ["users", "u1"])),
            ]
            if let ordered = try? queries[0].ordered(by: OrderBy(FieldPath(segments: ["age"]))).limited(to: 2) { queries.append(ordered) }
            queries += store.targets.saved.values.map(\.data.query)
            for query in queries {
                step("executeQuery") { _ = try store.executeQuery(query) }
                step("executeQuery(usePreviousResults:)") { _ = try store.executeQuery(query, usePreviousResults: true) }
                step("executeLocalQuery") { _ = try store.executeLocalQuery(query) }
                step("targetData") { _ = store.targetData(for: query) }
            }
            for path in ["users/u0", "users/u1", "users/u9", "users/gone", "users/unknown", "rooms/r1"] {
                step("localDocument") { _ = try store.localDocument(key(path)) }
                step("remoteDocument") { _ = try store.remoteDocument(key(path)) }
                step("targetIDs") { _ = store.targetIDs(containing: key(path)) }
            }
            for targetID in store.targets.saved.keys { step("remoteKeys") { _ = store.remoteKeys(forTarget: targetID) } }
            for user in ["", "ada"] {
                step("switchUser") { _ = try store.switchUser(to: user) }
                step("nextMutationBatch") {
                    var after: Int?
                    for _ in 0..<10 {
                        guard let batch = try store.nextMutationBatch(after: after) else { break }
                        after = batch.batchID
                    }
                }
            }
            // What the sync engine does with the outbox and the targets it finds: acknowledge and reject the
            // pending batches, listen again to the saved targets and apply a remote event to them.
            step("acknowledgeBatch") {
                guard let batch = try store.nextMutationBatch(after: nil) else { return }
                let results = batch.mutations.map { mutation in
                    MutationResult(version: time(80), transformResults: mutation.fieldTransforms.map { transform in
                        switch transform.operation {
                        case .serverTimestamp: .timestamp(time(80))
                        case .increment: .integer(Int64.max)
                        case .arrayUnion, .arrayRemove: .null
                        }
                    })
                }
                try store.acknowledgeBatch(try MutationBatchResult(batch: batch, commitVersion: time(80), mutationResults: results))
            }
            step("rejectBatch") {
                guard let batch = try store.nextMutationBatch(after: nil) else { return }
                try store.rejectBatch(batch.batchID)
            }
            for entry in store.targets.saved.values {
                step("updateTarget") {
                    var data = try store.allocateTarget(entry.data.query)
                    data.snapshotVersion = time(90)
                    data.resumeToken = [1]
                    try store.updateTarget(data, added: [key("users/u0")], removed: [key("users/u1")])
                    _ = try store.applyRemoteEvent(RemoteEvent(
                        snapshotVersion: time(91), targetChanges: [data.targetID: TargetChange(resumeToken: [2], removed: [key("users/u0")])],
                        documentUpdates: byKey([found("users/u5", version: 91, ["age": .integer(1)])])))
                    try store.releaseTarget(data.targetID, keepPersisted: data.targetID % 4 == 0)
                }
            }
            step("writeLocally") { try store.writeLocally([.set(key("users/new"), value: ObjectValue(["n": .integer(1)]))], localWriteTime: time(60)) }
            step("allocateTarget") { _ = try store.allocateTarget(Query(path: ResourcePath(segments: ["fresh"]))) }
            step("setLastRemoteSnapshotVersion") { try store.setLastRemoteSnapshotVersion(time(70)) }
            step("backfillIndexes") { _ = try store.backfillIndexes(maxDocuments: 50) }
            step("collectGarbage") { _ = try store.collectGarbage(threshold: 0) }
            step("compact") { _ = try store.compact(minimumDeadRatio: 0) }
        }
        return opened
    }
}
