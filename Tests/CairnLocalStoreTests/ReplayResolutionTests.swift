import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Replay: document events resolved per key after the scan")
struct ReplayResolutionTests {
    @Test("ByteKeyTable gives each distinct byte string one dense id, across growth and shared prefixes")
    func byteKeyTableIDs() {
        var random = SeededRandom(seed: 3)
        var table = ByteKeyTable(expectedCount: 2)
        var model: [[UInt8]: Int] = [:]
        for _ in 0..<5_000 {
            // Short keys, many sharing prefixes and lengths around the 8-byte word boundary.
            let count = random.below(20)
            let bytes = (0..<count).map { _ in UInt8(97 + random.below(3)) }
            let (id, isNew) = bytes.withUnsafeBytes { table.id(for: $0) }
            if let known = model[bytes] {
                #expect(id == known && !isNew, "\(bytes)")
            } else {
                #expect(id == model.count && isNew, "\(bytes)")
                model[bytes] = id
            }
        }
        #expect(table.count == model.count)
        for (bytes, id) in model { #expect(table.withKey(id) { Array($0) } == bytes) }
    }

    /// Random writes (found, missing), evictions and compactions over documents in nested collections: after a
    /// reopen, every document reads as it did before closing, and every collection holds the same documents.
    @Test("a reopened cache shows exactly the documents the live one showed, after out-of-order compactions")
    func reopenMatchesLiveViews() throws {
        for seed in 1...4 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            let fs = SimulatedFileSystem()
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            let collections = ["orders", "users", "rooms/lobby/messages", "rooms/r1/messages"]
            let paths = collections.flatMap { collection in (0..<15).map { "\(collection)/doc-\($0)-abcdefghijklmnop" } }
            for step in 0..<400 {
                let path = paths[random.below(paths.count)]
                switch random.below(10) {
                case 0..<6:
                    try store.applyRemoteDocuments([found(path, version: Int64(step + 1), ["n": .integer(Int64(step))])])
                case 6:
                    let missing = Document(
                        key: key(path), state: .noDocument, version: time(Int64(step + 1)), readTime: time(Int64(step + 1)),
                        data: ObjectValue())
                    try store.applyRemoteDocuments([missing])
                case 7, 8:
                    try store.evictDocuments([key(path)])
                default:
                    _ = try store.compact(minimumDeadRatio: 0.2)
                }
            }
            try segmentLog(of: store).sealActiveSegment()
            while try store.compact(minimumDeadRatio: 0.01) != nil {}
            /// What a document reads as: state, version and fields, or nil when the cache does not hold it.
            func snapshot(_ store: LocalStore) throws -> [String] {
                try paths.map { path in
                    guard let document = try store.remoteDocument(key(path)) else { return "\(path): none" }
                    return "\(path): \(document.state) \(document.version) \(document.data.fields)"
                }
            }
            let before = try snapshot(store)
            let queried = try collections.map { try Set(store.executeQuery(Query(path: ResourcePath(parsing: $0))).map(\.key)) }
            try store.close()

            let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            #expect(try snapshot(reopened) == before, "seed \(seed)")
            #expect(try collections.map { try Set(reopened.executeQuery(Query(path: ResourcePath(parsing: $0))).map(\.key)) } == queried)
            #expect(queried.contains { !$0.isEmpty }, "the workload must leave documents behind")
            try reopened.close()
        }
    }
}
