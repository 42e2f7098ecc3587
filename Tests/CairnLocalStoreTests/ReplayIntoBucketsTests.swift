import CairnModel
import CairnTestSupport
import Testing
@testable import CairnLocalStore

/// ``RemoteDocumentReplay`` fills the view's own buckets while the records come in. These tests feed it records
/// in any order and compare the installed view with the rule of its doc comment, computed apart.
@Suite("Replay into the view's buckets: per key the highest sequence wins and a later eviction removes it")
struct ReplayIntoBucketsTests {
    /// Keys of the common shape in four collections, the same documents written with a leading or trailing `/`
    /// (another shape, parsed apart), states found, missing and unknown, evictions, sequence numbers in random
    /// order (as compaction delivers them).
    @Test("records in any order install exactly what the per-key rule keeps, and every other event is retired once")
    func anyOrderMatchesTheRule() throws {
        let collections = ["users", "rooms/lobby/messages", "a", "rooms/r1/messages"]
        // Some ids are 128 bytes or longer (a two-byte length in the arena).
        let documents = (0..<240).map {
            "\(collections[$0 % collections.count])/d\($0)-\(String(repeating: "x", count: $0 % 11 == 0 ? 130 + $0 : $0 % 19))"
        }
        let keys = documents + documents.prefix(30).map { "/" + $0 } + documents.suffix(30).map { $0 + "/" }
        let states: [Document.State] = [.found, .found, .noDocument, .unknown]
        for seed in 1...6 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            let count = 4_000
            var sequences = Array(1...UInt64(count))
            sequences.shuffle(using: &random)
            var replay = RemoteDocumentReplay()
            var retired: [UInt64] = []
            var changed: [String: (sequence: UInt64, state: Document.State)] = [:]
            var evicted: [String: UInt64] = [:]
            var allChanges: Set<UInt64> = []
            for sequence in sequences {
                let key = keys[random.below(random.below(3) == 0 ? 20 : keys.count)]
                if random.below(5) == 0 {
                    Array(key.utf8).withUnsafeBytes { replay.noteEvicted(key: $0, lsn: sequence) }
                    evicted[key] = max(evicted[key] ?? 0, sequence)
                    continue
                }
                let state = states[random.below(states.count)]
                let entry = Self.entry(sequence: sequence, state: state)
                if let dead = try Array(key.utf8).withUnsafeBytes({ try replay.noteChanged(key: $0, entry: entry) }) {
                    retired.append(Self.sequence(of: dead))
                }
                allChanges.insert(sequence)
                if (changed[key]?.sequence ?? 0) < sequence { changed[key] = (sequence, state) }
            }
            var view = RemoteDocumentView()
            try replay.install(into: &view) { retired.append(Self.sequence(of: $0)) }

            // The rule: per key bytes the highest change survives unless evicted at a higher sequence; per
            // document the highest survivor of its key shapes wins.
            var winners: [DocumentKey: (sequence: UInt64, state: Document.State)] = [:]
            for (key, latest) in changed where latest.sequence > evicted[key] ?? 0 {
                let document = try DocumentKey(parsing: key)
                if (winners[document]?.sequence ?? 0) < latest.sequence { winners[document] = latest }
            }
            for document in Set(try keys.map { try DocumentKey(parsing: $0) }) {
                let entry = view.entry(for: document)
                #expect(entry?.sequence == winners[document]?.sequence, "seed \(seed): \(document)")
                #expect(entry?.state == winners[document]?.state, "seed \(seed): \(document)")
                #expect(entry?.version == winners[document].map { Self.version(of: $0.sequence) }, "seed \(seed): \(document)")
            }
            #expect(view.foundCount == winners.values.filter { $0.state == .found }.count)
            #expect(view.absentCount == winners.values.filter { $0.state != .found }.count)
            for collection in collections {
                let path = try ResourcePath(parsing: collection)
                let expected = winners.filter { $0.key.collectionPath == path && $0.value.state == .found }.count
                #expect((view.collections[path]?.count ?? 0) == expected, "seed \(seed): \(collection)")
            }
            #expect(retired.count == Set(retired).count, "seed \(seed): an event retired twice")
            #expect(Set(retired) == allChanges.subtracting(winners.values.map(\.sequence)), "seed \(seed)")
        }
    }

    @Test("a record key that is not a document path is a dataLoss error, at its record or at the install")
    func invalidKeysAreDataLoss() throws {
        var replay = RemoteDocumentReplay()
        let entry = Self.entry(sequence: 1, state: .found)
        #expect(throws: LocalStoreError.self) {
            _ = try Array("users/ada/posts".utf8).withUnsafeBytes { try replay.noteChanged(key: $0, entry: entry) }
        }
        var other = RemoteDocumentReplay()
        _ = try Array("users".utf8).withUnsafeBytes { try other.noteChanged(key: $0, entry: entry) }
        var view = RemoteDocumentView()
        #expect(throws: LocalStoreError.self) { try other.install(into: &view) { _ in } }
    }

    @Test("a bucket keeps the later entry of an id, removes by position and keeps every id after its capacity is trimmed")
    func bucketKeepLatestRemoveAtAndTrim() {
        var bucket = DocumentBucket()
        for index in 0..<1_000 {
            Array("d\(index)".utf8).withUnsafeBytes { #expect(bucket.keepLatest(Self.entry(sequence: UInt64(index + 10), state: .found), for: $0) == nil) }
        }
        let older = Array("d5".utf8).withUnsafeBytes { bucket.keepLatest(Self.entry(sequence: 3, state: .found), for: $0) }
        #expect(older?.sequence == 3 && bucket["d5"]?.sequence == 15)
        let replaced = Array("d6".utf8).withUnsafeBytes { bucket.keepLatest(Self.entry(sequence: 5_000, state: .found), for: $0) }
        #expect(replaced?.sequence == 16 && bucket["d6"]?.sequence == 5_000)
        for position in stride(from: bucket.count - 1, through: 0, by: -3) { bucket.remove(at: position) }
        bucket.shrinkToFit()
        var left = 0
        for index in 0..<1_000 {
            guard let entry = bucket["d\(index)"] else { continue }
            left += 1
            #expect(entry.sequence == (index == 6 ? 5_000 : UInt64(index + 10)))
        }
        #expect(left == bucket.count && bucket.count == 666)
        #expect((0..<bucket.count).allSatisfy { bucket.position(of: bucket.id(at: $0)) == $0 })
    }

    /// Every fifth sequence number gets a version before 1970, which the packed form cannot hold, so entries
    /// kept whole beside the packed ones go through replay, removals and trimming too.
    private static func entry(sequence: UInt64, state: Document.State) -> RemoteDocumentEntry {
        RemoteDocumentEntry(
            reference: .memory(Int(sequence)), state: state, version: version(of: sequence),
            readTime: Timestamp(seconds: 2, nanoseconds: 3), hasCommittedMutations: false, sequence: sequence)
    }

    private static func version(of sequence: UInt64) -> Timestamp {
        Timestamp(seconds: sequence % 5 == 0 ? -Int64(sequence) : Int64(sequence), nanoseconds: 1)
    }

    @Test("trimming a bucket also shrinks its id table to the smallest that holds its ids at most 3/4 full")
    func trimShrinksTheTable() {
        var bucket = DocumentBucket()
        for index in 0..<1_000 {
            Array("d\(index)".utf8).withUnsafeBytes { _ = bucket.keepLatest(Self.entry(sequence: UInt64(index + 1), state: .found), for: $0) }
        }
        #expect(bucket.tableCapacity == 2_048)
        for position in stride(from: bucket.count - 1, through: 100, by: -1) { bucket.remove(at: position) }
        bucket.shrinkToFit()
        #expect(bucket.tableCapacity == 256)
        #expect((0..<bucket.count).allSatisfy { bucket.position(of: bucket.id(at: $0)) == $0 })
        #expect((0..<1_000).filter { bucket["d\($0)"] != nil }.count == 100)
    }

    private static func sequence(of reference: EventReference) -> UInt64 {
        guard case .memory(let index) = reference else { return 0 }
        return UInt64(index)
    }
}
