import CairnModel
import Testing
@testable import CairnLocalStore

/// The chunks of an index's entry set store the prefix their sort keys share once and 2-byte offsets while they
/// fit: still exact for every insert, remove and range scan, and small for index-shaped keys.
@Suite("Field index view: packed entry chunks")
struct IndexEntryChunkTests {
    /// An index-shaped sort key: a label, one of a few words, the collection segment and a document id (or,
    /// rarely, a value of 70,000 bytes, which no 2-byte offset can hold).
    func sortKey(_ rng: inout SeededRandom) -> (key: [UInt8], keyStart: Int) {
        let word = Array("w\(rng.below(5))".utf8) + (rng.below(500) == 0 ? [UInt8](repeating: 0x61, count: 70_000) : [])
        let value = [0x19] + word + [0, 1]
        let id = Array("d\(rng.below(3000))".utf8)
        return (value + [0x3C] + Array("orders".utf8) + [0, 1, 0x3C] + id + [0, 1, 2], value.count)
    }

    @Test("random inserts and removes of prefix-sharing keys, large ones included, agree with a sorted array")
    func againstSortedArray() throws {
        var rng = SeededRandom(seed: 3)
        var set = SortedEntrySet()
        var reference: [[UInt8]: Int] = [:]
        for _ in 0..<12_000 {
            let (key, keyStart) = sortKey(&rng)
            if rng.below(3) > 0 {
                #expect(set.insert(key, keyStart: keyStart) == (reference[key] == nil))
                reference[key] = keyStart
            } else {
                #expect(set.remove(key) == (reference.removeValue(forKey: key) != nil))
            }
        }
        let sorted = reference.keys.sorted { $0.lexicographicallyPrecedes($1) }
        let all = set.all
        #expect(set.count == sorted.count && all.map(\.sortKey) == sorted)
        #expect(all.allSatisfy { reference[$0.sortKey] == $0.keyStart }, "every entry keeps its document-key offset")
        #expect(sorted.contains { $0.count > 70_000 }, "some entries need 4-byte offsets")
        for _ in 0..<100 {
            let bounds = [sortKey(&rng).key, sortKey(&rng).key].sorted { $0.lexicographicallyPrecedes($1) }
            let range = IndexRange(lower: Array(bounds[0].prefix(rng.below(30))), lowerInclusive: rng.below(2) == 0,
                                   upper: bounds[1], upperInclusive: rng.below(2) == 0)
            var scanned: [[UInt8]] = []
            set.forEach(in: range) { sortKey, keyStart in
                #expect(reference[Array(sortKey)] == keyStart)
                scanned.append(Array(sortKey))
                return true
            }
            #expect(scanned == sorted.filter(range.contains), "range \(range)")
        }
    }

    @Test("an array-contains index of 20,000 entries holds at most 36 bytes per entry")
    func bytesPerEntry() throws {
        let index = try FieldIndex(collectionGroup: "orders", segments: [.init(FieldPath(segments: ["tags"]), .contains)])
        var view = FieldIndexView()
        view.replaceIndexes([index]) { _ in [] }
        var rng = SeededRandom(seed: 5)
        let words = ["priority", "gift", "express", "fragile", "bulk", "sale", "return", "digital"]
        for number in 0..<8_000 {
            // A 20-character id, as the benchmark's (and Firestore's automatic ids).
            let id = (0..<20).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement(using: &rng)! }
            let tags = (0..<(1 + number % 4)).map { Value.string(words[($0 * 3 + number) % words.count]) }
            let document = Document(
                key: try DocumentKey(parsing: "orders/" + String(id)), state: .found, version: time(1),
                data: ObjectValue(["tags": .array(tags)]))
            view.update([document], previous: [.none])
        }
        let status = try #require(view.statuses(in: { _ in nil }).first)
        #expect(status.entryCount == 20_000)
        #expect(status.memoryBytes <= 36 * status.entryCount, "\(Double(status.memoryBytes) / Double(status.entryCount)) bytes per entry")
    }
}
