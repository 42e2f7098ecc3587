import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection: bounded compaction per round")
struct GarbageCollectionStallTests {
    /// Letters that LZ4 cannot squeeze, so documents take real space on disk.
    static func filler(_ random: inout SeededRandom) -> String {
        String((0..<150).map { _ in Character(Unicode.Scalar(UInt8(97 + random.below(26)))) })
    }

    @Test("a round rewrites at most two segments' worth of bytes, however large the cache, and rounds reach the threshold")
    func roundsRewriteBoundedBytes() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        var random = SeededRandom(seed: 5)
        for batch in 0..<40 {
            try store.applyRemoteDocuments((0..<10).map { i in
                found("old/o\(batch * 10 + i)", version: 1, ["f": .string(Self.filler(&random))])
            })
        }
        let log = segmentLog(of: store)
        let threshold = Int64(log.statistics.fileBytes / 2)
        let largestSegment = log.statistics.segments.map(\.fileBytes).max() ?? 0
        #expect(log.statistics.segments.count > 6, "the cache must span many segments")
        var rounds = 0
        while log.statistics.fileBytes > UInt64(threshold) && rounds < 200 {
            let before = log.statistics.segments
            let result = try store.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .zero)
            rounds += 1
            let after = Set(log.statistics.segments.map(\.id))
            let rewritten = before.filter { !after.contains($0.id) }.reduce(0) { $0 + $1.fileBytes }
            // The round's own piece, and the one segments already half dead may get before it.
            #expect(rewritten <= 2 * largestSegment, "round \(rounds) rewrote \(rewritten) bytes: \(result)")
        }
        #expect(log.statistics.fileBytes <= UInt64(threshold), "\(rounds) rounds")
        #expect(rounds > 1, "a collection this large takes several bounded rounds")
        let kept = try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(try reopened.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count == kept)
        try reopened.close()
    }
}
