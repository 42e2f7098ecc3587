import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The orphan queue names documents by their place in the remote documents view (``DocumentHandle``), which
/// moves: an eviction moves its bucket's last entry into the hole, a document that stops or starts existing moves
/// between the bucket of its collection and the absent one. Collection must still take exactly the least recently
/// used orphans, in the session, after compaction relocated every record, and after a restart.
@Suite("Garbage collection: orphan handles follow the view")
struct GarbageCollectionOrphanHandleTests {
    static let paths = (0..<60).map { ["orders/o\($0)", "rooms/r\($0)", "rooms/r\($0 % 3)/messages/m\($0)"][$0 % 3] }

    /// Random writes (existing, deleted, access lost) of orphans, one append each: returns the store, its disk and
    /// the cached paths from least to most recently written.
    func history(seed: UInt64) throws -> (LocalStore, SimulatedFileSystem, [String]) {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        var random = SeededRandom(seed: seed)
        var recency: [String] = []
        for step in 1...400 {
            let path = Self.paths[random.below(Self.paths.count)]
            recency.removeAll { $0 == path }
            switch random.below(6) {
            case 0:
                try store.applyRemoteDocuments([Document(key: key(path), state: .noDocument, version: time(0))])
            case 1:
                try store.applyRemoteDocuments([Document(key: key(path), state: .noDocument, version: time(Int64(step)))])
                recency.append(path)
            default:
                try store.applyRemoteDocuments([found(path, version: Int64(step), ["step": .integer(Int64(step))])])
                recency.append(path)
            }
        }
        return (store, fs, recency)
    }

    /// Runs single collection rounds until nothing is cached, checking that each takes the oldest of what is left.
    func expectOldestFirst(_ store: LocalStore, _ recency: [String], _ context: String) throws {
        var left = recency
        #expect(store.remoteDocuments.lowestOrphans(Int.max).entries.map(\.element) == left.map(key), "queue order: \(context)")
        while !left.isEmpty {
            let result = try store.collectGarbage(threshold: 0, maxRounds: 1)
            let gone = left.prefix(result.documentsEvicted)
            #expect(result.documentsEvicted > 0, "\(context)")
            #expect(try gone.allSatisfy { try store.remoteDocument(key($0)) == nil }, "the oldest went: \(context)")
            left.removeFirst(result.documentsEvicted)
            #expect(try left.allSatisfy { try store.remoteDocument(key($0)) != nil }, "the younger stayed: \(context)")
            if result.documentsEvicted == 0 { break }
        }
        #expect(store.remoteDocuments.orphanCount == 0)
    }

    @Test("collection evicts exactly the least recently used orphans after evictions and deletions moved their entries")
    func inSession() throws {
        for seed in 1...3 as ClosedRange<UInt64> {
            let (store, _, recency) = try history(seed: seed)
            try expectOldestFirst(store, recency, "seed \(seed)")
            try store.close()
        }
    }

    @Test("collection evicts exactly the least recently used orphans after compaction moved every record and a restart")
    func afterCompactionAndRestart() throws {
        for seed in 4...5 as ClosedRange<UInt64> {
            let (store, fs, recency) = try history(seed: seed)
            while try store.compact(minimumDeadRatio: 0.01) != nil {}
            #expect(store.remoteDocuments.lowestOrphans(Int.max).entries.map(\.element) == recency.map(key), "relocated")
            try store.close()
            let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            try expectOldestFirst(reopened, recency, "seed \(seed), reopened")
            try reopened.close()
        }
    }
}
