import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection")
struct GarbageCollectionTests: MutationQueueTesting {
    @Test("GC brings the bytes on disk under the threshold without evicting active, pending or pinned documents")
    func underThreshold() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let filler = String(repeating: "z", count: 300)
        // Old orphaned documents, an inactive target's documents, an active target's, and pending writes.
        for i in 0..<150 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string(filler)])]) }
        let inactive = Query(path: ResourcePath(segments: ["gone"]))
        _ = try store.allocateTarget(inactive)
        for i in 0..<50 { try store.applyRemoteDocuments([found("gone/g\(i)", version: 1, ["f": .string(filler)])]) }
        try store.advanceTarget(inactive, token: [1], at: 10, added: Set((0..<50).map { key("gone/g\($0)") }))
        try store.releaseTarget(store.targetData(for: inactive)!.targetID, keepPersisted: true)
        _ = try store.allocateTarget(roomsQuery())
        for i in 0..<20 { try store.applyRemoteDocuments([found("rooms/r\(i)", version: 1, ["f": .string(filler)])]) }
        try store.advanceTarget(roomsQuery(), token: [2], at: 20, added: Set((0..<20).map { key("rooms/r\($0)") }))
        for i in 0..<5 { _ = try store.writeLocally([updateData("old/o\(i)", ["n": .integer(Int64(i))])], localWriteTime: time(30)) }
        let log = segmentLog(of: store)
        let before = log.statistics.fileBytes
        let threshold = Int64(before / 3)
        let result = try store.collectGarbage(threshold: threshold)
        #expect(result.bytesAfter <= UInt64(threshold), "\(result)")
        #expect(log.statistics.fileBytes <= UInt64(threshold))
        #expect(result.documentsEvicted > 0 && result.targetsRemoved == 1, "\(result)")
        // Active and pending documents stay; the inactive target is gone.
        for i in 0..<20 { #expect(try store.remoteDocument(key("rooms/r\(i)")) != nil, "active rooms/r\(i)") }
        for i in 0..<5 { #expect(try store.localDocument(key("old/o\(i)"))?.data.fields["n"] == .integer(Int64(i))) }
        #expect(store.targetData(for: inactive) == nil)
        let kept = try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count
        try store.close()
        // Evicted documents stay gone after a restart.
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(try reopened.executeQuery(Query(path: ResourcePath(segments: ["old"]))).count == kept)
        #expect(try reopened.executeQuery(Query(path: ResourcePath(segments: ["gone"]))).isEmpty)
        #expect(try reopened.executeQuery(roomsQuery()).count == 20)
        try reopened.close()
    }

    @Test("an unlimited cache and a memory cache collect nothing")
    func unlimited() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        for i in 0..<40 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string("x")])]) }
        #expect(try store.collectGarbage(threshold: LocalStore.cacheSizeUnlimited).documentsEvicted == 0)
        #expect(store.documentCount == 40)
        #expect(try LocalStore.inMemory().collectGarbage(threshold: 0).rounds == 0)
        try store.close()
    }
}
