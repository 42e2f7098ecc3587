// Deterministic benchmark data: document-like JSON records keyed by Firestore-style paths. Record `i` of a
// generator depends only on the seed and `i`, so both engines get byte-identical data without holding it
// all in memory, and every run of the benchmark writes the same bytes.

import CairnTestSupport


/// One record as both engines store it: an application kind byte, a key and a value.
struct BenchRecord: Sendable {
    var kind: UInt8
    var key: [UInt8]
    var value: [UInt8]
}

/// A record key as the layer above keeps it in its in-memory index: the key's bytes, hashed as one block
/// (`[UInt8]`'s own `Hashable` feeds the hasher byte by byte, which would dominate replay time).
struct KeyBytes: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    init(_ buffer: UnsafeRawBufferPointer) { bytes = Array(buffer) }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Generates record `i` of a data set: key `users/<20-character id>` (unique per index, in random order
/// like Firestore's automatic ids) and a JSON document of about `valueSize` bytes with nested objects, ids,
/// numbers, booleans, arrays and English-like text. Documents of 600 bytes or more get the full shape
/// (profile, address, stats, order items, events); smaller ones keep the top-level fields and a text field.
struct DocumentGenerator: Sendable {
    let seed: UInt64
    let valueSize: Int

    init(seed: UInt64, valueSize: Int) {
        self.seed = seed
        self.valueSize = valueSize
    }

    /// The kind byte every generated record gets ("document").
    static let documentKind: UInt8 = 1

    func record(at index: Int) -> BenchRecord {
        var rng = SeededRandom(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        let id = documentID(index)
        return BenchRecord(kind: Self.documentKind, key: Array("users/".utf8) + id, value: document(id: id, rng: &rng))
    }

    func records(_ range: Range<Int>) -> [BenchRecord] { range.map(record(at:)) }

    func key(at index: Int) -> KeyBytes { KeyBytes(Array("users/".utf8) + documentID(index)) }

    /// 20 base-62 characters: 11 from a bijective scramble of the index (so ids never collide), 9 from a hash.
    private func documentID(_ index: Int) -> [UInt8] {
        var unique = UInt64(index) &+ seed &* 0x9E37_79B9_7F4A_7C15
        unique = (unique ^ (unique >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        unique = (unique ^ (unique >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        unique ^= unique >> 33
        var scrambler = SeededRandom(seed: unique)
        var filler = scrambler.next()
        var id: [UInt8] = []
        id.reserveCapacity(20)
        for _ in 0..<11 {
            id.append(Vocabulary.base62[Int(unique % 62)])
            unique /= 62
        }
        for _ in 0..<9 {
            id.append(Vocabulary.base62[Int(filler % 62)])
            filler /= 62
        }
        return id
    }

    private func document(id: [UInt8], rng: inout SeededRandom) -> [UInt8] {
        var json = JSONWriter(capacity: valueSize + 128)
        json.open("{")
        json.key("id"); json.bytesString(id)
        json.key("createdAt"); json.integer(1_600_000_000_000 + rng.below(100_000_000_000))
        json.key("updatedAt"); json.integer(1_700_000_000_000 + rng.below(10_000_000_000))
        json.key("version"); json.integer(1 + rng.below(40))
        let first = Vocabulary.firstNames.randomElement(using: &rng)!
        let last = Vocabulary.lastNames.randomElement(using: &rng)!
        json.key("name"); json.string("\(first) \(last)")
        json.key("score"); json.decimal(rng.below(1_000_000), scale: 100)
        json.key("active"); json.boolean(rng.below(4) != 0)
        json.key("tags"); json.open("[")
        for _ in 0..<(1 + rng.below(4)) { json.string(Vocabulary.words.randomElement(using: &rng)!) }
        json.close("]")
        if valueSize >= 600 { fullShape(&json, first: first, last: last, rng: &rng) }
        json.key("notes")
        json.text(until: valueSize - 2, rng: &rng)
        json.close("}")
        return json.bytes
    }

    private func fullShape(_ json: inout JSONWriter, first: String, last: String, rng: inout SeededRandom) {
        json.key("profile"); json.open("{")
        json.key("email"); json.string("\(first.lowercased()).\(last.lowercased())\(rng.below(1000))@example.com")
        json.key("age"); json.integer(18 + rng.below(70))
        json.key("verified"); json.boolean(rng.below(2) == 0)
        json.key("locale"); json.string(Vocabulary.locales.randomElement(using: &rng)!)
        json.close("}")
        json.key("address"); json.open("{")
        json.key("street"); json.string("\(1 + rng.below(9999)) \(Vocabulary.streets.randomElement(using: &rng)!)")
        json.key("city"); json.string(Vocabulary.cities.randomElement(using: &rng)!)
        json.key("zip"); json.string(String(10000 + rng.below(90000)))
        json.key("geo"); json.open("{")
        json.key("lat"); json.decimal(rng.below(180_000_000) - 90_000_000, scale: 1_000_000)
        json.key("lng"); json.decimal(rng.below(360_000_000) - 180_000_000, scale: 1_000_000)
        json.close("}")
        json.close("}")
        json.key("stats"); json.open("{")
        json.key("views"); json.integer(rng.below(1_000_000))
        json.key("likes"); json.integer(rng.below(50_000))
        json.key("shares"); json.integer(rng.below(5_000))
        json.close("}")
        json.key("items"); json.open("[")
        for _ in 0..<(1 + rng.below(3)) {
            json.open("{")
            json.key("sku"); json.string("SKU-\(100_000 + rng.below(900_000))")
            json.key("product"); json.string(Vocabulary.words.randomElement(using: &rng)!)
            json.key("qty"); json.integer(1 + rng.below(9))
            json.key("price"); json.decimal(99 + rng.below(99_900), scale: 100)
            json.close("}")
        }
        json.close("]")
        json.key("events"); json.open("[")
        for _ in 0..<(2 + rng.below(3)) {
            json.open("{")
            json.key("type"); json.string(Vocabulary.eventTypes.randomElement(using: &rng)!)
            json.key("at"); json.integer(1_700_000_000_000 + rng.below(10_000_000_000))
            json.key("by"); json.string("users/\(first.lowercased())\(rng.below(100_000))")
            json.key("status"); json.string(Vocabulary.statuses.randomElement(using: &rng)!)
            json.close("}")
        }
        json.close("]")
    }
}
