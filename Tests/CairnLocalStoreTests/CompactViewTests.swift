import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Compact views: the remote documents view keeps plain packed values per document")
struct CompactViewTests {
    @Test("a view entry is at most 56 bytes and gives back every field it was built with")
    func entryIsPackedAndExact() {
        #expect(MemoryLayout<RemoteDocumentEntry>.stride <= 56)
        let references: [EventReference] = [
            .log(RecordLocation(segment: .max, frameOffset: 7, index: .max - 1, size: 123_456)), .memory(0), .memory(Int.max),
            .memory(-1),
        ]
        let states: [Document.State] = [.found, .noDocument, .unknown]
        for (step, reference) in references.enumerated() {
            for state in states {
                let version = Timestamp(seconds: Int64.min + Int64(step), nanoseconds: 999_999_999)
                let readTime = Timestamp(seconds: 253_402_300_799, nanoseconds: Int32(step))
                var entry = RemoteDocumentEntry(
                    reference: reference, state: state, version: version, readTime: readTime,
                    hasCommittedMutations: step % 2 == 0, sequence: UInt64.max - UInt64(step))
                #expect(entry.reference == reference && entry.state == state)
                #expect(entry.version == version && entry.readTime == readTime)
                #expect(entry.hasCommittedMutations == (step % 2 == 0) && entry.sequence == UInt64.max - UInt64(step))
                let moved = EventReference.log(RecordLocation(segment: 1, frameOffset: 2, index: 3, size: 4))
                entry.reference = moved
                #expect(entry.reference == moved && entry.state == state && entry.version == version)
            }
        }
    }

    /// Random sets, replacements and removals of ids of many lengths (empty, multibyte, around the hash's 8-byte
    /// words, lengths of two and three bytes in the arena): lookups, positions, ids and counts always match a dictionary's, through growth and arena rewrites.
    @Test("a document bucket behaves as a dictionary from id to entry through growth, removals and arena rewrites")
    func bucketMatchesDictionary() {
        for seed in 1...3 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            var bucket = DocumentBucket()
            var model: [String: RemoteDocumentEntry] = [:]
            let ids = (0..<3_000).map { index in
                String(repeating: "é", count: random.below(3)) + String(index, radix: 36) + String(repeating: "x", count: random.below(40))
            } + ["", String(repeating: "long", count: 40), String(repeating: "z", count: 20_000)]
            for step in 0..<60_000 {
                let id = ids[random.below(random.below(4) == 0 ? 50 : ids.count)]
                if random.below(5) < 3 {
                    let entry = OrphanModel.entry(sequence: UInt64(step))
                    #expect(bucket.set(entry, for: id)?.sequence == model.updateValue(entry, forKey: id)?.sequence)
                } else {
                    #expect(bucket.remove(id)?.sequence == model.removeValue(forKey: id)?.sequence)
                }
                if step % 7_919 == 0 { Self.expect(bucket, equals: model, ids: ids) }
            }
            Self.expect(bucket, equals: model, ids: ids)
            for id in model.keys { bucket.remove(id) }
            #expect(bucket.isEmpty)
            #expect(ids.allSatisfy { bucket[$0] == nil })
        }
    }

    @Test("replay fills each collection's bucket from the log's keys: every document is found again after a reopen")
    func replayedBucketsHoldEveryDocument() throws {
        let fs = SimulatedFileSystem()
        var store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let paths = (0..<600).map { index in
            index % 3 == 0 ? "orders/o\(index)-\(String(repeating: "z", count: index % 30))" : "rooms/r\(index % 7)/messages/m\(index)"
        }
        for (step, path) in paths.enumerated() {
            try store.applyRemoteDocuments([found(path, version: Int64(step + 1), ["n": .integer(Int64(step))])])
        }
        try store.evictDocuments(paths.enumerated().filter { $0.offset % 5 == 0 }.map { key($0.element) })
        try store.close()
        store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        for (step, path) in paths.enumerated() {
            let document = try store.remoteDocument(key(path))
            if step % 5 == 0 {
                #expect(document == nil, "\(path)")
            } else {
                #expect(document?.data.fields["n"] == .integer(Int64(step)), "\(path)")
            }
        }
        var seen = 0
        store.remoteDocuments.forEachEntry { _, entry in if entry.state == .found { seen += 1 } }
        #expect(seen == paths.count - paths.count / 5)
        #expect(store.documentCount == seen)
        try store.close()
    }

    @Test("an index entry's document key decodes from its sort key, ascending or descending, numeric ids and escaped bytes included")
    func indexEntryKeysDecode() throws {
        let paths = ["orders/o1", "rooms/__id42__/messages/__id-7__", "a/\u{0}\u{FF}é/b/\u{0}", "users/\(String(repeating: "x", count: 300))"]
        for path in paths {
            let key = try DocumentKey(parsing: path)
            for descending in [false, true] {
                var encoder = IndexKeyEncoder()
                encoder.append(.string("prefix"), descending: descending)
                let keyStart = encoder.bytes.count
                encoder.appendDocumentKey(key, descending: descending)
                let decoded = encoder.bytes.withUnsafeBytes {
                    IndexKeyEncoder.documentKey(decoding: UnsafeRawBufferPointer(rebasing: $0[keyStart...]), descending: descending)
                }
                #expect(decoded == key, "\(path) descending: \(descending)")
                #expect(encoder.bytes.dropLast().withUnsafeBytes {
                    IndexKeyEncoder.documentKey(decoding: UnsafeRawBufferPointer(rebasing: $0[keyStart...]), descending: descending)
                } == nil)
            }
        }
    }

    /// The entries of a document are found again from its previous version (or, one time in eight, by the scan
    /// for its key that stands in when that version is unreadable) when it changes or leaves: after random
    /// updates and removals the index holds exactly the entries computed from the current documents.
    @Test("an index's packed entries follow every change and removal of its documents, array-contains included")
    func indexEntriesFollowDocuments() throws {
        let byTags = try FieldIndex(collectionGroup: "orders", segments: [.init(FieldPath(segments: ["tags"]), .contains)])
        let byAmount = try FieldIndex(collectionGroup: "orders", segments: [.init(FieldPath(segments: ["amount"]), .descending)])
        var view = FieldIndexView()
        view.replaceIndexes([byTags, byAmount]) { _ in [] }
        var random = SeededRandom(seed: 9)
        var current: [DocumentKey: Document] = [:]
        for step in 0..<2_000 {
            let key = try DocumentKey(parsing: "orders/o\(random.below(120))")
            let previous: FieldIndexView.PreviousVersion =
                random.below(8) == 0 ? .unreadable : current[key].map { .document($0) } ?? .none
            if random.below(4) == 0 {
                view.remove([key], previous: [previous])
                current[key] = nil
            } else {
                let tags = (0..<random.below(4)).map { _ in Value.string("t\(random.below(6))") }
                let document = Document(
                    key: key, state: .found, version: time(Int64(step + 1)), readTime: time(Int64(step + 1)),
                    data: ObjectValue(["tags": .array(tags), "amount": .integer(Int64(random.below(50)))]))
                view.update([document], previous: [previous])
                current[key] = document
            }
        }
        for index in [byTags, byAmount] {
            let expected = current.values.flatMap { index.entries(for: $0) }.map(\.sortKey).sorted { $0.lexicographicallyPrecedes($1) }
            let actual = view.entries(of: index)
            #expect(actual.map(\.sortKey) == expected)
            for entry in actual {
                let document = try #require(current[entry.key], "an entry of a removed document: \(entry.key)")
                #expect(index.entries(for: document).contains { $0.sortKey == entry.sortKey })
            }
        }
    }

    /// Random writes that move documents between the existing and the absent bucket, evictions that move each
    /// bucket's last entry into the hole, and orphans queued, moved and dequeued (ids reused): the view's orphan
    /// queue yields exactly the model's orphans with their keys and sequence numbers, in sequence order.
    @Test("the orphan queue names documents by handles that follow every move in the view, and keeps no key")
    func orphanQueueFollowsTheView() throws {
        var random = SeededRandom(seed: 5)
        var orphans = OrphanModel()
        let keys = try (0..<400).map { try DocumentKey(parsing: $0 % 2 == 0 ? "orders/o\($0)" : "rooms/__id\($0 % 9)__/messages/m\($0)") }
        for step in 1...20_000 {
            let key = keys[random.below(keys.count)]
            let sequence = UInt64(step)
            switch random.below(6) {
            case 0:
                orphans.remove(key)
            case 1:
                let removed = orphans.removeOrphan(key)
                #expect(removed.view == removed.model)
            case 2, 3:
                let state: Document.State = random.below(4) == 0 ? .noDocument : .found
                orphans.set(OrphanModel.entry(sequence: sequence, state: state), for: key)
            default:
                orphans.setOrphan(key, sequence: sequence)
            }
            if step % 997 == 0 { #expect(orphans.sequencesMatch(keys)) }
        }
        var view = orphans.view
        let model = orphans.sequences
        let lowest = view.lowestOrphans(Int.max)
        #expect(lowest.entries.map(\.element) == model.sorted { $0.value < $1.value }.map(\.key))
        #expect(lowest.entries.map(\.sequence) == model.values.sorted())
        view.rebuildOrphans { key, _ in model[key].map { $0 / 1_000 } }
        let ties = model.map { (sequence: $0.value / 1_000, key: $0.key) }.sorted { ($0.sequence, $0.key) < ($1.sequence, $1.key) }
        #expect(view.lowestOrphans(Int.max).entries.map(\.element) == ties.map(\.key), "rebuilt: ties in key order")
        #expect(keys.allSatisfy { view.orphanSequence(of: $0) == model[$0].map { $0 / 1_000 } })
    }

    private static func expect(_ bucket: DocumentBucket, equals model: [String: RemoteDocumentEntry], ids: [String]) {
        #expect(bucket.count == model.count)
        for id in ids { #expect(bucket[id]?.sequence == model[id]?.sequence, "\(id)") }
        var listed: [String: UInt64] = [:]
        for position in 0..<bucket.count {
            let id = bucket.id(at: position)
            listed[id] = bucket.entries[position].sequence
            #expect(bucket.position(of: id) == position)
        }
        #expect(listed == model.mapValues(\.sequence))
    }
}
