import CairnTestSupport
import Testing
@testable import SegmentLog

/// What a compaction step counts against its budget.
@Suite("Compaction: work per step")
struct CompactionWorkTests {
    @Test("a frame whose records are all retired counts as an eighth of its size, so a step moves further through emptied segments")
    func skippedFramesCountLess() throws {
        let fixture = try CompactionTests.Fixture(seed: 41, batches: 200)
        let victim = try #require(fixture.sealed.first)
        let records = fixture.records(in: victim)
        let frames = Set(records.map(\.location.frameOffset))
        #expect(frames.count >= 6, "the segment must span several frames")
        for record in records { fixture.log.retire(record.location) }
        let fileBytes = try #require(fixture.log.statistics.segments.first { $0.id == victim }?.fileBytes)
        let compaction = try fixture.log.makeCompaction(of: [victim]) { _ in true }
        // A quarter of the segment per step: frames counted whole take at least four steps, counted as an
        // eighth of their size they all fit in the first.
        let (summary, steps) = try CompactionTests.finish(compaction, budget: Int(fileBytes / 4))
        #expect(steps == 1, "\(frames.count) emptied frames took \(steps) steps")
        #expect(summary.recordsKept == 0)
        #expect(summary.recordsDropped == records.count)
        #expect(!fixture.log.statistics.segments.contains { $0.id == victim })
    }
}
