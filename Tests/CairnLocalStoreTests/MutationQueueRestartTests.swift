import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("MutationQueue: the outbox across restarts and users")
struct MutationQueueRestartTests: MutationQueueTesting {
    @Test("the outbox order, the batches and the overlays survive a restart")
    func outboxSurvives() throws {
        let fixture = try RestartableStore(.persistent)
        try fixture.store.applyRemoteDocuments([found("rooms/a", version: 5, ["n": .integer(1)])])
        try fixture.store.writeLocally([updateData("rooms/a", [:], transforms: [increment("n", by: .integer(2))])], localWriteTime: time(100))
        try fixture.store.writeLocally([setData("rooms/b", ["x": .string("b")]), .delete(key("rooms/a"))], localWriteTime: time(101))
        try fixture.store.writeLocally([mergeData("rooms/a", ["m": .integer(3)], transforms: [serverTimestamp("t")])], localWriteTime: time(102))
        let keys = [key("rooms/a"), key("rooms/b")]
        let viewsBefore = try keys.map { describe(try fixture.store.localDocument($0)) }
        let batchesBefore = [try fixture.store.nextMutationBatch(after: nil), try fixture.store.nextMutationBatch(after: 1),
                             try fixture.store.nextMutationBatch(after: 2)]
        try fixture.restart()
        #expect(fixture.store.pendingBatchIDs == [1, 2, 3])
        #expect(try keys.map { describe(try fixture.store.localDocument($0)) } == viewsBefore)
        #expect(try fixture.store.nextMutationBatch(after: nil) == batchesBefore[0])
        #expect(try fixture.store.nextMutationBatch(after: 1) == batchesBefore[1])
        #expect(try fixture.store.nextMutationBatch(after: 2) == batchesBefore[2])
        #expect(try fixture.store.nextMutationBatch(after: 3) == nil)
        #expect(try fixture.store.localDocument(key("rooms/a"))?.data == object(["m": .integer(3), "t": .serverTimestamp(localWriteTime: time(102), previous: nil)]))
    }

    @Test("batch ids are never reused, even after the outbox empties and the cache restarts")
    func idsNeverReused() throws {
        let fixture = try RestartableStore(.persistent)
        let first = try fixture.store.writeLocally([setData("rooms/a", [:])], localWriteTime: time(100)).batchID
        let second = try fixture.store.writeLocally([setData("rooms/b", [:])], localWriteTime: time(101)).batchID
        try fixture.store.acknowledgeBatch(acknowledgement(try #require(try fixture.store.nextMutationBatch(after: nil)), at: 200))
        try fixture.store.rejectBatch(second)
        #expect(fixture.store.pendingBatchIDs.isEmpty && [first, second] == [1, 2])
        try fixture.restart()
        try fixture.restart()
        #expect(try fixture.store.writeLocally([setData("rooms/c", [:])], localWriteTime: time(102)).batchID == 3)
        try fixture.store.rejectBatch(3)
        try fixture.restart()
        #expect(try fixture.store.writeLocally([setData("rooms/c", [:])], localWriteTime: time(103)).batchID == 4)
    }

    @Test("each user's outbox survives; the local view shows only the current user's writes")
    func usersAreSeparate() throws {
        let fixture = try RestartableStore(.persistent)
        try fixture.store.writeLocally([setData("rooms/a", ["by": .string("anonymous")])], localWriteTime: time(100))
        try fixture.store.switchUser(to: "ada")
        try fixture.store.writeLocally([setData("rooms/b", ["by": .string("ada")])], localWriteTime: time(101))
        try fixture.store.switchUser(to: "")
        try fixture.store.writeLocally([setData("rooms/c", ["by": .string("anonymous")])], localWriteTime: time(102))
        #expect(fixture.store.pendingBatchIDs == [1, 3] && fixture.store.highestUnacknowledgedBatchID == 3)
        try fixture.restart()
        #expect(fixture.store.currentUser == "" && fixture.store.pendingBatchIDs == [1, 3])
        #expect(try fixture.store.localDocument(key("rooms/b")) == nil)
        #expect(try fixture.store.executeLocalQuery(Query(path: ResourcePath(parsing: "rooms"))).map(\.key) == [key("rooms/a"), key("rooms/c")])
        try fixture.store.switchUser(to: "ada")
        #expect(fixture.store.pendingBatchIDs == [2] && fixture.store.highestUnacknowledgedBatchID == 2)
        #expect(try fixture.store.localDocument(key("rooms/a")) == nil)
        #expect(try fixture.store.localDocument(key("rooms/b"))?.data == object(["by": .string("ada")]))
        #expect(try fixture.store.nextMutationBatch(after: nil)?.batchID == 2)
        #expect(try fixture.store.writeLocally([setData("rooms/d", [:])], localWriteTime: time(103)).batchID == 4)
    }

    @Test("a removal that replay meets before its addition (as compaction may order them) still removes the batch")
    func removalBeforeAddition() throws {
        let fs = SimulatedFileSystem()
        let batch = MutationBatch(batchID: 5, localWriteTime: time(100), mutations: [setData("rooms/a", [:])])
        let log = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
        for event in [MutationBatchEvent.removed(5, .rejected), MutationBatchEvent.added(batch, user: "")] {
            try log.append(kind: event.kind.rawValue, key: event.key, value: event.value)
        }
        try log.close()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(store.pendingBatchIDs.isEmpty)
        #expect(try store.localDocument(key("rooms/a")) == nil)
        #expect(try store.writeLocally([setData("rooms/b", [:])], localWriteTime: time(101)).batchID == 6)
        try store.close()
    }

    @Test("a damaged outbox record is reported as dataLoss, never skipped")
    func damagedRecords() throws {
        let damagedBatch = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/cache", configuration: smallLog(damagedBatch))
        try log.append(kind: EventKind.mutationBatchAdded.rawValue, key: MutationBatchEvent.key(1), value: [1, 0, 1, 2, 3])
        try log.close()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(damagedBatch))
        #expect(store.pendingBatchIDs == [1])
        expectError(.dataLoss) { try store.localDocument(key("rooms/a")) as Any }
        expectError(.dataLoss) { try store.nextMutationBatch(after: nil) as Any }
        try store.close()

        for (key, value) in [(MutationBatchEvent.key(1), [9] as [UInt8]), (MutationBatchEvent.key(1), [1, 200]), ([0x62, 1], [1, 2])] {
            let fs = SimulatedFileSystem()
            let log = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
            try log.append(kind: EventKind.mutationBatchAdded.rawValue, key: key, value: value)
            try log.close()
            expectError(.dataLoss) { try LocalStore.open(at: "/cache", configuration: smallLog(fs)) }
        }
        let fs = SimulatedFileSystem()
        let removedLog = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
        try removedLog.append(kind: EventKind.mutationBatchRemoved.rawValue, key: MutationBatchEvent.key(1), value: [1, 1])
        try removedLog.close()
        expectError(.dataLoss) { try LocalStore.open(at: "/cache", configuration: smallLog(fs)) }
    }

    @Test("a removed batch's addition is retired and its removal stays live, so compaction never brings the batch back")
    func retirement() throws {
        let fixture = try RestartableStore(.persistent)
        var random = OutboxRandom(seed: 1)
        for i in 0..<40 {
            // Incompressible, so the batches fill several segments.
            let payload = Value.bytes((0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            let (batchID, _) = try fixture.store.writeLocally([setData("rooms/r\(i)", ["p": payload])], localWriteTime: time(100))
            if i == 0 || i == 39 { continue }
            if i % 2 == 0 {
                try fixture.store.rejectBatch(batchID)
            } else {
                try fixture.store.acknowledgeBatch(acknowledgement(try #require(try fixture.store.nextMutationBatch(after: 1)), at: 200 + Int64(i)))
            }
        }
        #expect(fixture.store.pendingBatchIDs == [1, 40])
        let log = try #require(fixture.store.events.log)
        try log.scan { record in
            guard let kind = EventKind(rawValue: record.kind), kind == .mutationBatchAdded || kind == .mutationBatchRemoved else { return }
            let batchID = try MutationBatchEvent.batchID(from: record.key)
            let shouldBeLive = kind == .mutationBatchRemoved || batchID == 1 || batchID == 40
            #expect(log.isRetired(record.location) == !shouldBeLive, "\(kind) of batch \(batchID)")
        }
        let compaction = try log.makeCompaction(of: log.compactionCandidates(minimumDeadRatio: 0.01)) { !log.isRetired($0.location) }
        let summary = try #require(try { while true { if let summary = try compaction.step() { return summary } } }())
        #expect(summary.recordsDropped > 0)
        try fixture.restart()
        #expect(fixture.store.pendingBatchIDs == [1, 40])
        #expect(try fixture.store.executeLocalQuery(Query(path: ResourcePath(parsing: "rooms"))).count == 21)
        #expect(try fixture.store.writeLocally([setData("rooms/z", [:])], localWriteTime: time(300)).batchID == 41)
    }
}
