import CairnModel
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The garbage-collection index is maintained incrementally by every path that changes a document's status;
/// random histories check it against a brute-force recomputation after every step, across restarts and
/// compactions.
@Suite("Garbage collection: index against brute force")
struct GarbageCollectionIndexPropertyTests: MutationQueueTesting {
    static let paths = (0..<12).map { "rooms/d\($0)" }
    static let queries = [roomsQuery(), roomsQuery(sizeAbove: 1), roomsQuery(sizeAbove: 2)]

    /// Checks the orphan and inactive-target queues against what the views say.
    func expectConsistent(_ store: LocalStore, _ context: String) throws {
        let pending = try store.keysUnderPendingWrites()
        var referenced = Set<DocumentKey>()
        for id in store.activeTargetIDs { referenced.formUnion(store.localViewReferences(of: id)) }
        let orphans = Set(Self.paths.map(key).filter {
            store.remoteDocuments.entry(for: $0) != nil && store.targetIDs(containing: $0).isEmpty && !referenced.contains($0)
        })
        let queued = Set(store.remoteDocuments.lowestOrphans(Int.max).entries.map(\.element))
        #expect(queued.isSubset(of: orphans), "only orphans are queued: \(context)")
        #expect(orphans.subtracting(pending).isSubset(of: queued), "every unpinned orphan is queued: \(context)")
        var targetQueue = store.collector.index.inactiveTargets
        let inactive = Set(store.targets.saved.keys).subtracting(store.activeTargetIDs)
        #expect(Set(targetQueue.lowest(Int.max).entries.map(\.element)) == inactive, "inactive targets: \(context)")
    }

    @Test("after every step of random histories, the queues hold exactly the orphans and inactive targets")
    func randomHistories() throws {
        for seed in 1...6 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            let fixture = try RestartableStore(.persistent)
            var version: Int64 = 1
            for step in 0..<150 {
                let store = fixture.store
                let path = Self.paths[random.below(Self.paths.count)]
                let query = Self.queries[random.below(Self.queries.count)]
                version += 1
                var action = ""
                switch random.below(10) {
                case 0, 1:
                    action = "remote \(path)"
                    try store.applyRemoteDocuments([found(path, version: version, ["size": .integer(version % 4)])])
                case 2, 3:
                    action = "target change \(query.target.canonicalID)"
                    let targetID = try store.allocateTarget(query).targetID
                    let change = TargetChange(
                        resumeToken: [UInt8(step % 256)], added: random.below(2) == 0 ? [key(path)] : [],
                        removed: random.below(2) == 0 ? [key(Self.paths[random.below(Self.paths.count)])] : [])
                    try store.applyRemoteEvent(RemoteEvent(
                        snapshotVersion: time(version), targetChanges: [targetID: change],
                        documentUpdates: byKey([found(path, version: version, ["size": .integer(2)])])))
                case 4:
                    action = "view \(path)"
                    if let id = store.activeTargetIDs.sorted().first {
                        let adding = random.below(2) == 0
                        store.notifyLocalViewChanges(targetID: id, added: adding ? [key(path)] : [], removed: adding ? [] : [key(path)])
                    }
                case 5:
                    action = "release"
                    if let id = store.activeTargetIDs.sorted().last { try store.releaseTarget(id, keepPersisted: random.below(2) == 0) }
                case 6:
                    action = "write \(path)"
                    _ = try store.writeLocally([setData(path, ["size": .integer(9)])], localWriteTime: time(version))
                case 7:
                    action = "ack or reject"
                    if let batch = try store.nextMutationBatch(after: nil) {
                        if random.below(2) == 0 { try store.acknowledgeBatch(acknowledgement(batch, at: version)) } else { try store.rejectBatch(batch.batchID) }
                    }
                case 8:
                    action = "collect"
                    try store.collectGarbage(threshold: 0, maxRounds: 1 + random.below(3))
                default:
                    action = random.below(2) == 0 ? "restart" : "compact"
                    if action == "restart" { try fixture.restart() } else { while try store.compact(minimumDeadRatio: 0.01) != nil {} }
                }
                try expectConsistent(fixture.store, "seed \(seed) step \(step) \(action)")
            }
            try fixture.store.close()
        }
    }
}
