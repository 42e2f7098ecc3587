import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection: rounds sliced by a time budget")
struct GarbageCollectionRoundBudgetTests {
    /// A cache of 3,000 orphans in 64 KiB segments: a round's n (10%, then fewer as they go) is more than one
    /// eviction slice at first.
    static func store(_ fs: SimulatedFileSystem) throws -> LocalStore {
        let store = try LocalStore.open(at: "/cache", configuration: GarbageCollectionStepTests.log(fs))
        var random = SeededRandom(seed: 23)
        for batch in 0..<30 {
            try store.applyRemoteDocuments((0..<100).map { i in
                found("old/o\(batch * 100 + i)", version: 1, ["f": .string(GarbageCollectionStallTests.filler(&random))])
            })
        }
        return store
    }

    @Test("with no time left a round evicts one slice and makes one compaction step, and the rounds still reach the threshold")
    func zeroBudgetRoundIsOneSlice() throws {
        let fs = SimulatedFileSystem()
        let store = try Self.store(fs)
        let log = segmentLog(of: store)
        let threshold = Int64(log.statistics.fileBytes / 2)
        var rounds = 0
        var largestRound = 0
        while log.statistics.fileBytes > UInt64(threshold) && rounds < 1000 {
            let before = GarbageCollectionStepTests.segmentFiles(fs)
            let activeBefore = GarbageCollectionStepTests.activeSegment(store)
            let result = try store.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .zero)
            rounds += 1
            largestRound = max(largestRound, result.documentsEvicted)
            #expect(result.documentsEvicted <= LocalStore.evictionSliceSize, "round \(rounds): \(result)")
            let active = Set([activeBefore, GarbageCollectionStepTests.activeSegment(store)].compactMap { $0 })
            let written = GarbageCollectionStepTests.outputGrowth(fs, from: before, excluding: active)
            // A compaction's outputs are buffered (SegmentBuilder writes them at 1 MiB or when sealed), so
            // the steps of several rounds land in the file of the round that publishes: at most one segment's
            // worth (the inputs a compaction takes) and a sealed output's footer.
            #expect(written <= (64 << 10) + 4096, "round \(rounds) wrote \(written) compaction bytes: \(result)")
            if result.rounds == 0 && result.bytesAfter == result.bytesBefore { break }
        }
        #expect(log.statistics.fileBytes <= UInt64(threshold), "\(rounds) rounds")
        #expect(largestRound == LocalStore.evictionSliceSize, "the first rounds had more than one slice to take")
        let kept = try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count
        #expect(kept > 0 && kept < 3000)
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: GarbageCollectionStepTests.log(fs))
        #expect(try reopened.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count == kept)
        try reopened.close()
    }

    @Test("a round whose caller says other work waits evicts one slice, as with no time left, and takes its n otherwise")
    func roundYieldsToWaitingWork() throws {
        let yielding = try Self.store(SimulatedFileSystem())
        let threshold = Int64(segmentLog(of: yielding).statistics.fileBytes / 2)
        var asked = 0
        let round = try yielding.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .seconds(3600)) {
            asked += 1
            return true
        }
        #expect(round.documentsEvicted == LocalStore.evictionSliceSize && asked > 0, "\(round)")
        let next = try yielding.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .seconds(3600)) { false }
        #expect(next.documentsEvicted > LocalStore.evictionSliceSize, "\(next)")
        try yielding.close()
    }

    @Test("with time to spare a round takes its whole n in several slices, as an unbounded round does")
    func roundWithTimeTakesItsN() throws {
        let sliced = try Self.store(SimulatedFileSystem())
        let whole = try Self.store(SimulatedFileSystem())
        let threshold = Int64(segmentLog(of: sliced).statistics.fileBytes / 2)
        let n = 3000 * LocalStore.collectionPercentile / 100
        #expect(n > LocalStore.evictionSliceSize)
        let slicedRound = try sliced.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .seconds(3600))
        let wholeRound = try whole.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: nil)
        #expect(slicedRound.documentsEvicted == n)
        #expect(wholeRound.documentsEvicted == n)
        let survivors = { (store: LocalStore) in
            try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).map(\.key)
        }
        #expect(try survivors(sliced) == survivors(whole), "slices evict the same least-recently-used documents")
        try sliced.close()
        try whole.close()
    }
}
