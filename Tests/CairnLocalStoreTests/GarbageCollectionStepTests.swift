import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection: a compaction spread over rounds")
struct GarbageCollectionStepTests {
    /// Segments of 64 KiB in frames of 1 KiB: a compaction step reads 8 KiB (a segment / 8).
    static func log(_ fs: SimulatedFileSystem) -> SegmentLog.Configuration {
        var configuration = smallLog(fs)
        configuration.segmentTargetSize = 64 << 10
        return configuration
    }

    /// A closed cache of 1,200 documents in several segments: in each batch 20 orphans, then 10 members of the
    /// active rooms target, so that every segment keeps a third of its records when the orphans go.
    static func base() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: log(fs))
        let rooms = try store.allocateTarget(roomsQuery()).targetID
        var random = SeededRandom(seed: 11)
        for batch in 0..<40 {
            try store.applyRemoteDocuments((0..<20).map { i in
                found("old/o\(batch * 20 + i)", version: 1, ["f": .string(GarbageCollectionStallTests.filler(&random))])
            })
            let members = (0..<10).map { i in
                found("rooms/r\(batch * 10 + i)", version: 2, ["f": .string(GarbageCollectionStallTests.filler(&random))])
            }
            try store.applyRemoteEvent(RemoteEvent(
                snapshotVersion: time(Int64(2 + batch)),
                targetChanges: [rooms: .init(resumeToken: [UInt8(batch)], added: Set(members.map(\.key)))],
                documentUpdates: byKey(members)))
        }
        try store.close()
        return fs
    }

    /// Bytes each segment file that is not `active` grew by (a new file counts whole): compaction output.
    static func outputGrowth(_ fs: SimulatedFileSystem, from before: [String: Int], excluding active: Set<UInt32>) -> Int {
        segmentFiles(fs).reduce(0) { total, file in
            guard let id = UInt32(file.key.dropLast(4)), !active.contains(id) else { return total }
            return total + max(0, file.value - (before[file.key] ?? 0))
        }
    }

    static func segmentFiles(_ fs: SimulatedFileSystem) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: fs.fileNames(in: "/cache").filter { $0.hasSuffix(".seg") }.map {
            ($0, fs.bytes(of: "/cache/\($0)")?.count ?? 0)
        })
    }

    static func activeSegment(_ store: LocalStore) -> UInt32? {
        segmentLog(of: store).statistics.segments.last(where: \.isActive)?.id
    }

    /// The rooms members all there and whole, and the old documents that are gone.
    static func checkMembers(_ store: LocalStore, _ context: String) throws -> Set<String> {
        #expect(try store.executeQuery(roomsQuery()).count == 400, "\(context)")
        return try Set((0..<800).map { "old/o\($0)" }.filter { try store.remoteDocument(key($0)) == nil })
    }

    @Test("with no time left each round writes at most one segment's worth of compaction output, the rounds reach the threshold, and what is gone stays gone")
    func roundsShareACompaction() throws {
        let fs = try Self.base()
        let store = try LocalStore.open(at: "/cache", configuration: Self.log(fs))
        _ = try store.allocateTarget(roomsQuery())
        let log = segmentLog(of: store)
        let threshold = Int64(log.statistics.fileBytes * 6 / 10)
        #expect(log.statistics.segments.count >= 4, "the cache must span several segments")
        var rounds = 0
        var spanned = 0
        var crashImages: [SimulatedFileSystem] = []
        while log.statistics.fileBytes > UInt64(threshold) && rounds < 300 {
            let before = Self.segmentFiles(fs)
            let activeBefore = Self.activeSegment(store)
            // No time left: the leading step and the round's one step.
            let result = try store.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: .zero)
            rounds += 1
            let active = Set([activeBefore, Self.activeSegment(store)].compactMap { $0 })
            let written = Self.outputGrowth(fs, from: before, excluding: active)
            // A compaction's outputs are buffered (SegmentBuilder writes them at 1 MiB or when sealed), so
            // the steps of several rounds land in the file of the round that publishes: at most one segment's
            // worth (the inputs a compaction takes) and a sealed output's footer.
            #expect(written <= (64 << 10) + 4096, "round \(rounds) wrote \(written) compaction bytes: \(result)")
            if store.compactionCoordinator.inProgress != nil {
                spanned += 1
                if crashImages.count < 2 { crashImages.append(fs.crashImage(.dropUnsyncedData, seed: UInt64(rounds))) }
            }
        }
        #expect(log.statistics.fileBytes <= UInt64(threshold), "\(rounds) rounds")
        #expect(spanned > 0, "a compaction in progress at the end of some round")
        while try store.compact(minimumDeadRatio: 0.01) != nil {}
        let gone = try Self.checkMembers(store, "after the rounds")
        #expect(!gone.isEmpty)
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: Self.log(fs))
        #expect(try Self.checkMembers(reopened, "reopened") == gone, "evicted documents stay gone")
        try reopened.close()

        // A crash between two rounds of one compaction: the cache opens whole, and collects on.
        #expect(!crashImages.isEmpty)
        for (n, image) in crashImages.enumerated() {
            let recovered = try LocalStore.open(at: "/cache", configuration: Self.log(image))
            _ = try recovered.allocateTarget(roomsQuery())
            _ = try Self.checkMembers(recovered, "crash image \(n)")
            try recovered.collectGarbage(threshold: threshold)
            while try recovered.compact(minimumDeadRatio: 0.01) != nil {}
            let goneAfterCrash = try Self.checkMembers(recovered, "crash image \(n), collected")
            try recovered.close()
            let again = try LocalStore.open(at: "/cache", configuration: Self.log(image))
            #expect(try Self.checkMembers(again, "crash image \(n), reopened") == goneAfterCrash)
            try again.close()
        }
    }
}
