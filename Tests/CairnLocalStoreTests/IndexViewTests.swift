import CairnModel
import Testing
@testable import CairnLocalStore

/// The ordered entry set under every field index, against a sorted array: random inserts, removes and range
/// scans (including exclusive bounds and ranges across chunk boundaries).
@Suite("Field index view: ordered entry set")
struct IndexViewTests {
    func randomKey(_ rng: inout SeededRandom) -> [UInt8] {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in UInt8.random(in: 0...4, using: &rng) * 60 }
    }

    @Test("inserts, removes and range scans agree with a sorted array")
    func againstSortedArray() {
        for seed in UInt64(0)..<4 {
            var rng = SeededRandom(seed: seed)
            var set = SortedEntrySet()
            var reference: [[UInt8]] = []
            for step in 0..<2000 {
                let sortKey = randomKey(&rng)
                if Int.random(in: 0..<3, using: &rng) > 0 {
                    let inserted = set.insert(sortKey, keyStart: step % 3)
                    #expect(inserted == !reference.contains(sortKey))
                    if inserted { reference.append(sortKey) }
                } else {
                    let removed = set.remove(sortKey)
                    #expect(removed == reference.contains(sortKey))
                    reference.removeAll { $0 == sortKey }
                }
            }
            reference.sort { $0.lexicographicallyPrecedes($1) }
            #expect(set.count == reference.count && set.all.map(\.sortKey) == reference, "seed \(seed)")
            for _ in 0..<200 {
                let bounds = [randomKey(&rng), randomKey(&rng)].sorted { $0.lexicographicallyPrecedes($1) }
                let range = IndexRange(
                    lower: bounds[0], lowerInclusive: Bool.random(using: &rng), upper: bounds[1], upperInclusive: Bool.random(using: &rng))
                var scanned: [[UInt8]] = []
                set.forEach(in: range) { sortKey, _ in
                    scanned.append(Array(sortKey))
                    return true
                }
                #expect(scanned == reference.filter(range.contains), "seed \(seed), range \(range)")
            }
        }
    }

    @Test("a large set splits into chunks and still scans every entry in order")
    func manyChunks() {
        var set = SortedEntrySet()
        for number in (0..<5000).reversed() {
            set.insert([UInt8(number >> 8), UInt8(number & 0xFF)], keyStart: number % 2)
        }
        var scanned: [Int] = []
        set.forEach(in: IndexRange(lower: [0], lowerInclusive: true, upper: [0xFF], upperInclusive: false)) { sortKey, keyStart in
            #expect(keyStart == Int(sortKey[1]) % 2, "each entry keeps its document-key offset")
            scanned.append(Int(sortKey[0]) << 8 | Int(sortKey[1]))
            return scanned.count < 4000
        }
        #expect(scanned == Array(0..<4000), "the scan runs in order and stops when told")
        for number in stride(from: 0, to: 5000, by: 2) { set.remove([UInt8(number >> 8), UInt8(number & 0xFF)]) }
        #expect(set.all.map { Int($0.sortKey[0]) << 8 | Int($0.sortKey[1]) } == Array(stride(from: 1, to: 5000, by: 2)))
    }
}
