import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Documents added to an active target by a remote event (doc and membership in one append): never orphans.
func addToTarget(_ store: LocalStore, _ query: Query, _ paths: [String], at seconds: Int64) throws {
    let target = try #require(store.targetData(for: query)).targetID
    let documents = paths.map { found($0, version: seconds, ["f": .string("member")]) }
    try store.applyRemoteEvent(RemoteEvent(
        snapshotVersion: time(seconds), targetChanges: [target: .init(resumeToken: [1], added: Set(paths.map(key)))],
        documentUpdates: byKey(documents)))
}

@Suite("Garbage collection: bounded work and LRU order")
struct GarbageCollectionBoundedWorkTests {
    /// A cache with 100 orphans (o0 oldest) and `members` documents in an active target, collected for 3 rounds.
    func collect(members: Int) throws -> (result: GarbageCollectionResult, gone: [Int]) {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        for i in 0..<100 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string("orphan")])]) }
        _ = try store.allocateTarget(roomsQuery())
        for chunk in stride(from: 0, to: members, by: 250) {
            try addToTarget(store, roomsQuery(), (chunk..<min(chunk + 250, members)).map { "rooms/r\($0)" }, at: Int64(10 + chunk))
        }
        let result = try store.collectGarbage(threshold: 0, maxRounds: 3)
        let gone = try (0..<100).filter { try store.remoteDocument(key("old/o\($0)")) == nil }
        #expect(store.documentCount == 100 - gone.count + members)
        try store.close()
        return (result, gone)
    }

    @Test("a run reads only the entries it collects, however many documents are in targets")
    func workDoesNotGrowWithMembers() throws {
        let small = try collect(members: 100)
        let large = try collect(members: 2000)
        // Rounds take 10% of the candidates: 10 of 100, 9 of 90, 8 of 81.
        #expect(small.result.sequenceNumbersCollected == 27 && small.result.rounds == 3, "\(small.result)")
        #expect(small.gone == Array(0..<27), "the oldest orphans go first")
        #expect(large.gone == small.gone)
        // Each collected entry is read when chosen and once more when the next round drops it as stale.
        #expect(small.result.entriesExamined <= 2 * small.result.sequenceNumbersCollected, "\(small.result)")
        #expect(large.result.entriesExamined == small.result.entriesExamined, "\(large.result) vs \(small.result)")
    }

    @Test("documents under a pending write are read once, then wait outside the queue for their batch")
    func pendingWritesLeaveTheQueue() throws {
        let fs = SimulatedFileSystem()
        var store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        for i in 0..<30 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string("orphan")])]) }
        try store.switchUser(to: "bob")
        let (batchID, _) = try store.writeLocally(
            (0..<3).map { .set(key("old/o\($0)"), value: ObjectValue(["n": .integer(1)])) }, localWriteTime: time(5))
        // After a restart the outbox is not decoded yet: the three oldest orphans are back at the queue's front.
        try store.close()
        store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let first = try store.collectGarbage(threshold: 0, maxRounds: 1)
        #expect(first.documentsEvicted == 3, "10% of 30: \(first)")
        #expect(first.entriesExamined == first.documentsEvicted + 3, "the three pinned orphans are read once: \(first)")
        let second = try store.collectGarbage(threshold: 0, maxRounds: 1)
        #expect(second.documentsEvicted == 2, "10% of 24: \(second)")
        let third = try store.collectGarbage(threshold: 0, maxRounds: 1)
        #expect(third.entriesExamined == second.documentsEvicted + third.documentsEvicted,
                "the last run's entries, dropped as stale, and this run's; the pinned ones are not read again: \(third)")
        for i in 0..<3 { #expect(try store.remoteDocument(key("old/o\(i)")) != nil, "o\(i) is under bob's pending write") }
        try store.switchUser(to: "bob")
        try store.rejectBatch(batchID)
        try store.collectGarbage(threshold: 0)
        for i in 0..<3 { #expect(try store.remoteDocument(key("old/o\(i)")) == nil, "o\(i) is collectable after its batch") }
        #expect(store.documentCount == 0)
        try store.close()
    }

    /// Builds the order scenario; returns the store (target still active) and its disk.
    func scenario() throws -> (LocalStore, SimulatedFileSystem) {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        for i in 0..<6 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .integer(Int64(i))])]) }
        _ = try store.allocateTarget(roomsQuery())
        try addToTarget(store, roomsQuery(), ["rooms/r"], at: 10)
        try store.applyRemoteDocuments([found("old/o2", version: 2, ["f": .integer(22)])])  // used again: newest orphan
        let target = try #require(store.targetData(for: roomsQuery())).targetID
        try store.applyRemoteEvent(RemoteEvent(
            snapshotVersion: time(20), targetChanges: [target: .init(resumeToken: [2], removed: [key("rooms/r")])]))
        try store.releaseTarget(target, keepPersisted: true)
        return (store, fs)
    }

    /// Collects one sequence number per run and names what went, until nothing is left.
    func evictionOrder(_ store: LocalStore) throws -> [String] {
        let all = (0..<6).map { "old/o\($0)" } + ["rooms/r"]
        var order: [String] = []
        while true {
            let result = try store.collectGarbage(threshold: 0, maxRounds: 1)
            if result.sequenceNumbersCollected == 0 { break }
            #expect(result.sequenceNumbersCollected == 1)
            if result.targetsRemoved == 1 { order.append("target") }
            for path in all where !order.contains(path) {
                if try store.remoteDocument(key(path)) == nil { order.append(path) }
            }
        }
        return order
    }

    @Test("orphans go oldest first by orphan sequence number, the same in session and after compaction and a restart")
    func orderInSessionAndAfterReplay() throws {
        let expected = ["old/o0", "old/o1", "old/o3", "old/o4", "old/o5", "old/o2", "target", "rooms/r"]
        let (live, _) = try scenario()
        #expect(try evictionOrder(live) == expected)
        try live.close()
        let (closed, fs) = try scenario()
        while try closed.compact(minimumDeadRatio: 0.01) != nil {}  // replay then meets records out of LSN order
        try closed.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(try evictionOrder(reopened) == expected)
        try reopened.close()
    }

    @Test("the sequence queue keeps elements in order through moves, removals and out-of-order inserts")
    func sequenceQueue() {
        var queue = SequenceQueue<Int>()
        var model: [Int: UInt64] = [:]
        var random = SeededRandom(seed: 7)
        var sequence: UInt64 = 1000
        for _ in 0..<5000 {
            let element = Int(random.below(200))
            switch random.below(4) {
            case 0:
                queue.remove(element)
                model[element] = nil
            case 1:
                let older = sequence - UInt64(random.below(900))  // a target released with keepPersisted
                queue.set(element, sequence: older)
                model[element] = older
            default:
                sequence += 1
                queue.set(element, sequence: sequence)
                model[element] = sequence
            }
        }
        let lowest = queue.lowest(50)
        let expected = model.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(50)
        #expect(lowest.entries.map(\.sequence) == expected.map(\.value))
        #expect(Set(lowest.entries.map(\.element)).count == lowest.entries.count, "no element twice")
        #expect(queue.count == model.count)
        #expect(queue.lowest(1000).entries.count == model.count)
    }
}
