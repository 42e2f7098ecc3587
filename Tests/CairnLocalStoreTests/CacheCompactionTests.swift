import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Compaction changes where events live, never what the cache holds: after it, in the same process and after a
/// restart, every view answers as before, and the bytes on disk fall.
@Suite("Cache compaction")
struct CacheCompactionTests: MutationQueueTesting {
    /// Everything observable about a cache, as comparable text.
    func snapshot(_ store: LocalStore) throws -> [String] {
        var lines: [String] = []
        for collection in ["rooms", "halls"] {
            let query = Query(path: ResourcePath(segments: [collection]))
            lines += try store.executeLocalQuery(query).map(describe)
            lines += try store.executeQuery(query).map { "remote " + describe($0) }
        }
        for i in 0..<30 { lines.append("gone? " + describe(try store.remoteDocument(key("halls/h\(i)")))) }
        lines.append("pending \(store.pendingBatchIDs)")
        for id in store.pendingBatchIDs {
            lines.append("batch \(String(describing: try store.nextMutationBatch(after: id - 1)?.mutations.count))")
        }
        for query in [roomsQuery(), roomsQuery(sizeAbove: 1)] {
            if let data = store.targetData(for: query) {
                lines.append("target \(data.targetID) \(data.resumeToken) \(data.snapshotVersion.seconds) \(data.sequenceNumber)")
                lines.append("keys \(store.remoteKeys(forTarget: data.targetID).map(\.description).sorted())")
            }
        }
        lines.append("globals \(store.lastRemoteSnapshotVersion.seconds) \(store.highestTargetID) \(String(describing: store.writeStreamToken(forUser: "")))")
        return lines
    }

    /// A workload that writes every kind of event, overwrites a lot, and rolls many small segments.
    func populate(_ store: LocalStore) throws {
        for round in 0..<6 {
            var documents: [Document] = []
            for i in 0..<30 {
                documents.append(found("halls/h\(i)", version: Int64(round * 100 + i + 1), [
                    "round": .integer(Int64(round)), "text": .string(String(repeating: "h", count: 150)),
                ]))
            }
            try store.applyRemoteDocuments(documents)
            try store.applyRemoteDocuments([found("rooms/r\(round)", version: Int64(round + 1), ["size": .integer(Int64(round))])])
        }
        try store.evictDocuments((0..<30).filter { $0 % 4 == 0 }.map { key("halls/h\($0)") })
        _ = try store.allocateTarget(roomsQuery())
        _ = try store.allocateTarget(roomsQuery(sizeAbove: 1))
        for step in 0..<70 {  // more than 64 deltas: a membership snapshot supersedes them
            try store.advanceTarget(roomsQuery(), token: [UInt8(step)], at: Int64(1000 + step * 400),
                                    added: keySet("rooms/r\(step % 6)"), removed: step % 5 == 0 ? keySet("rooms/r0") : [])
        }
        try store.advanceTarget(roomsQuery(sizeAbove: 1), token: [9], at: 5000, added: keySet("rooms/r2", "rooms/r3"))
        for step in 0..<10 { try store.setWriteStreamToken([UInt8(step)], forUser: "") }
        try store.setLastRemoteSnapshotVersion(time(9000))
        var acknowledged: [Int] = []
        for i in 0..<8 {
            let (id, _) = try store.writeLocally([setData("rooms/w\(i)", ["size": .integer(Int64(10 + i))])], localWriteTime: time(2000))
            if i % 3 == 0 { acknowledged.append(id) }
        }
        for id in acknowledged {
            let batch = try #require(try store.nextMutationBatch(after: id - 1))
            if id % 2 == 0 { try store.acknowledgeBatch(acknowledgement(batch, at: 3000)) } else { try store.rejectBatch(id) }
        }
        _ = try store.writeLocally([updateData("halls/h1", ["round": .integer(99)])], localWriteTime: time(2500))
        let removed = try #require(store.targetData(for: roomsQuery(sizeAbove: 1))).targetID
        try store.releaseTarget(removed, keepPersisted: false)
        try store.removeTarget(removed)
    }

    @Test("after compaction every view answers as before, in process and after a restart, and the log shrinks")
    func compactionKeepsState() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        try populate(store)
        let before = try snapshot(store)
        let bytesBefore = segmentLog(of: store).statistics.fileBytes
        var compactions = 0
        while let summary = try store.compact(minimumDeadRatio: 0.05, stepBudget: 2048) {
            compactions += 1
            #expect(summary.recordsDropped > 0)
            #expect(try snapshot(store) == before, "after compaction \(compactions), in process")
        }
        #expect(compactions >= 1, "the workload leaves dirty segments")
        let bytesAfter = segmentLog(of: store).statistics.fileBytes
        #expect(bytesAfter < bytesBefore * 2 / 3, "bytes on disk fell from \(bytesBefore) to \(bytesAfter)")
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(try snapshot(reopened) == before, "after compaction and a restart")
        // Writes keep working on the compacted cache.
        _ = try reopened.writeLocally([setData("rooms/after", ["size": .integer(1)])], localWriteTime: time(4000))
        try reopened.close()
    }

    @Test("a crash at any I/O operation during compaction leaves the cache as it was")
    func crashDuringCompaction() throws {
        let fs = SimulatedFileSystem()
        var before: [String] = []
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            try populate(store)
            before = try snapshot(store)
            try store.close()
        }
        let base = fs.crashImage(.keepUnsyncedData, seed: 0)
        var points = 0
        var completed = false
        for k in 1...400 {
            let disk = base.crashImage(.keepUnsyncedData, seed: 0)
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(disk))
            disk.crashAtOperation = disk.operationCount + k
            var finished = false
            do {
                while try store.compact(minimumDeadRatio: 0.05, stepBudget: 2048) != nil {}
                finished = true
            } catch {}
            let image = disk.crashImage(CrashModel.allCases[k % CrashModel.allCases.count], seed: UInt64(k))
            let recovered = try LocalStore.open(at: "/cache", configuration: smallLog(image))
            #expect(try snapshot(recovered) == before, "crash at compaction operation \(k)")
            try recovered.close()
            points += 1
            if finished {
                completed = true
                break
            }
        }
        print("cache compaction: \(points) crash points explored")
        #expect(completed, "some run got through every operation of the compaction")
        #expect(points > 5, "the compaction has several I/O operations to crash at")
    }
}
