import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection of a cache smaller than one segment")
struct GarbageCollectionActiveSegmentTests: MutationQueueTesting {
    /// A log with the default segment size (64 MiB): the whole cache fits in the active segment.
    func defaultLog(_ fs: SimulatedFileSystem) -> SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.fileSystem = fs
        return configuration
    }

    /// Letters that LZ4 cannot squeeze, so the documents take real space on disk.
    func filler(_ random: inout SeededRandom, count: Int) -> String {
        String((0..<count).map { _ in Character(Unicode.Scalar(UInt8(97 + random.below(26)))) })
    }

    @Test("GC seals the active segment and brings a cache under one segment below the threshold, across a reopen")
    func sealsActiveSegment() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: defaultLog(fs))
        var random = SeededRandom(seed: 11)
        for i in 0..<300 {
            try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string(filler(&random, count: 400))])])
        }
        _ = try store.allocateTarget(roomsQuery())
        try addToTarget(store, roomsQuery(), (0..<20).map { "rooms/r\($0)" }, at: 10)
        let rooms = try #require(store.targetData(for: roomsQuery())).targetID
        for i in 0..<5 { _ = try store.writeLocally([updateData("old/o\(i)", ["n": .integer(Int64(i))])], localWriteTime: time(30)) }
        store.notifyLocalViewChanges(targetID: rooms, added: [key("old/o5")], removed: [])
        let log = segmentLog(of: store)
        #expect(log.statistics.segments.count == 1, "the cache must sit in the active segment for this test")
        let before = log.statistics.fileBytes
        let threshold = Int64(before / 2)

        let result = try store.collectGarbage(threshold: threshold)
        #expect(result.bytesAfter <= UInt64(threshold), "\(result)")
        #expect(log.statistics.fileBytes <= UInt64(threshold), "\(log.statistics.fileBytes) bytes on disk")
        #expect(result.documentsEvicted > 0)
        func check(_ store: LocalStore) throws {
            for i in 0..<20 { #expect(try store.remoteDocument(key("rooms/r\(i)")) != nil, "active rooms/r\(i)") }
            for i in 0..<5 { #expect(try store.localDocument(key("old/o\(i)"))?.data.fields["n"] == .integer(Int64(i))) }
            #expect(try store.pendingBatches(of: "").count == 5)
        }
        try check(store)
        #expect(try store.remoteDocument(key("old/o5")) != nil, "a document a local view shows stays")
        let kept = try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count
        #expect(kept < 300)
        try store.close()

        let reopened = try LocalStore.open(at: "/cache", configuration: defaultLog(fs))
        #expect(segmentLog(of: reopened).statistics.fileBytes <= UInt64(threshold))
        try check(reopened)
        #expect(try reopened.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count == kept)
        #expect(try reopened.executeQuery(roomsQuery()).count == 20)
        try reopened.close()
    }
}
