import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection: no disk waits on the round's thread")
struct GarbageCollectionThreadTests {
    @Test("rounds with group commit sync, truncate, rename and delete nothing on their thread, and the collection survives a power loss after the next sync")
    func roundsLeaveDurableWorkToTheLog() throws {
        let disk = SimulatedFileSystem()
        let fs = ThreadRecordingFileSystem(base: disk)
        var configuration = smallLog(disk)
        configuration.fileSystem = fs
        // Segments small enough that the rounds' removal records fill some (rolls) and seal others.
        configuration.segmentTargetSize = 4096
        let store = try LocalStore.open(at: "/cache", configuration: configuration, syncing: .onRequest)
        var random = SeededRandom(seed: 17)
        for batch in 0..<80 {
            try store.applyRemoteDocuments((0..<10).map { i in
                found("old/o\(batch * 10 + i)", version: 1, ["f": .string(GarbageCollectionStallTests.filler(&random))])
            })
        }
        try store.syncAppends()
        let log = segmentLog(of: store)
        let threshold = Int64(log.statistics.fileBytes / 3)
        let before = fs.onOwnerThread.count
        var rounds = 0
        var sealed = 0
        while log.statistics.fileBytes > UInt64(threshold) && rounds < 400 {
            let active = log.statistics.segments.last(where: \.isActive)?.id
            // The smallest round the client's budget allows (one slice, one step), so that the work is the same
            // however loaded the machine.
            _ = try store.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .zero)
            rounds += 1
            if log.statistics.segments.last(where: \.isActive)?.id != active { sealed += 1 }
        }
        #expect(log.statistics.fileBytes <= UInt64(threshold), "\(rounds) rounds reached the threshold")
        #expect(rounds > 1 && sealed > 0, "several rounds, some of which started a segment: \(rounds), \(sealed)")
        #expect(Array(fs.onOwnerThread.dropFirst(before)) == [], "no disk wait on the round's thread")

        let kept = try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count
        try store.syncAppends()
        let image = try LocalStore.open(at: "/cache", configuration: smallLog(disk.crashImage(.dropUnsyncedData, seed: 3)))
        #expect(try image.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count == kept, "what the collection kept, after a power loss")
        try image.close()
        try store.close()
    }
}
