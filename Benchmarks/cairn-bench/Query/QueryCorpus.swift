// The query suite's cache contents: N Firestore documents of about 1 KiB (Cairn's document codec) in several
// collections and one collection group, generated deterministically so that every engine gets the same
// documents. Document `i` depends only on the seed and `i`.
//
//   orders/{id}                50%: region (100 values), status, amount, createdAt, tags, customer{…}, items[…]
//   users/{id}                 20%: profile fields and a bio
//   rooms/{room}/messages/{id} 30%: the first 1,000 in rooms/lobby (the listened chat), the rest in 200 rooms;
//                              channel (100 values), author, sentAt, text, reactions{…}

import CCRC32C
import CairnModel
import CairnTestSupport

/// Generates the documents of a query-suite cache.
struct QueryCorpus: Sendable {
    let count: Int
    let seed: UInt64

    /// Encoded document bodies are filled with text up to about this many bytes.
    static let documentBytes = 1024
    /// Messages in `rooms/lobby`, the listened chat of `listener_latency`.
    static let lobbySize = 1000
    /// `createdAt` / `sentAt` values lie in [timeBase, timeBase + timeSpan).
    static let timeBase: Int64 = 1_700_000_000_000
    static let timeSpan = 10_000_000_000
    /// The version every generated document has.
    static let version = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)

    /// Bump when the generator changes what it generates (the fingerprint also notices most changes by itself).
    static let generatorVersion = 1

    init(count: Int, seed: UInt64 = 7) {
        self.count = count
        self.seed = seed
    }

    /// The collection a document index falls in.
    enum Kind { case order, user, message }

    static func kind(of index: Int) -> Kind {
        switch index % 10 {
        case 0..<5: return .order
        case 5..<7: return .user
        default: return .message
        }
    }

    /// How many of the first `count` documents are messages before `index` (the message's number).
    static func messageNumber(of index: Int) -> Int { (index / 10) * 3 + (index % 10 - 7) }

    func document(at index: Int) -> Document {
        var rng = SeededRandom(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        let id = Self.documentID(index, rng: &rng)
        let key: DocumentKey
        var fields: [String: Value]
        switch Self.kind(of: index) {
        case .order:
            key = DocumentKey(path: ResourcePath(segments: ["orders", id]))
            fields = order(rng: &rng)
        case .user:
            key = DocumentKey(path: ResourcePath(segments: ["users", id]))
            fields = user(rng: &rng)
        case .message:
            let number = Self.messageNumber(of: index)
            let room = number < Self.lobbySize ? "lobby" : "room\(number % 200)"
            key = DocumentKey(path: ResourcePath(segments: ["rooms", room, "messages", id]))
            fields = message(room: room, rng: &rng)
        }
        fields["id"] = .string(id)
        let filled = Self.fill(ObjectValue(fields), rng: &rng)
        return Document(key: key, state: .found, version: Self.version, readTime: Self.version, data: filled)
    }

    func documents(_ range: Range<Int>) -> [Document] { range.map(document(at:)) }

    /// What a loaded cache of this corpus depends on besides the count: the generator's version, the seed, the
    /// suite's index configuration and the CRC32C of sample documents (keys and encoded bodies of the first 100
    /// and of 100 spread over the rest), for the fixture cache's manifests.
    var fingerprint: String {
        var crc: UInt32 = 0
        func extend(_ bytes: [UInt8]) { crc = bytes.withUnsafeBytes { cairn_crc32c_extend(crc, $0.baseAddress, $0.count) } }
        extend(Array(QueryCatalog.indexConfiguration.utf8))
        let samples = Set(0..<min(count, 100)).union((0..<100).map { $0 * count / 100 })
        for index in samples.sorted() {
            let sample = document(at: index)
            extend(Array(sample.key.description.utf8))
            extend(DocumentCodec.encode(sample.data))
        }
        return "generator \(Self.generatorVersion), seed \(seed), sample and index configuration CRC32C "
            + String(crc, radix: 16)
    }

    /// Messages in `rooms/lobby`: ``lobbySize``, or fewer in a corpus under 3,334 documents.
    var lobbyCount: Int { min(Self.lobbySize, (count / 10) * 3 + max(0, count % 10 - 7)) }

    /// A 20-character id, unique per index (the index in base 62, then random characters).
    private static func documentID(_ index: Int, rng: inout SeededRandom) -> String {
        var characters: [UInt8] = []
        var rest = index
        for _ in 0..<5 {
            characters.append(Vocabulary.base62[rest % 62])
            rest /= 62
        }
        for _ in 0..<15 { characters.append(Vocabulary.base62[rng.below(62)]) }
        return String(decoding: characters, as: UTF8.self)
    }

    private func order(rng: inout SeededRandom) -> [String: Value] {
        let first = Vocabulary.firstNames.randomElement(using: &rng)!
        let last = Vocabulary.lastNames.randomElement(using: &rng)!
        let items: [Value] = (0..<(1 + rng.below(3))).map { _ in
            .map(ObjectValue([
                "sku": .string("SKU-\(100_000 + rng.below(900_000))"),
                "product": .string(Vocabulary.words.randomElement(using: &rng)!),
                "qty": .integer(Int64(1 + rng.below(9))),
                "price": .double(Double(99 + rng.below(99_900)) / 100),
            ]))
        }
        return [
            "region": .string(Self.twoDigit("r", rng.below(100))),
            "status": .string(Vocabulary.statuses.randomElement(using: &rng)!),
            "amount": .double(Double(rng.below(100_000)) / 100),
            "createdAt": .integer(Self.timeBase + Int64(rng.below(Self.timeSpan))),
            "tags": .array((0..<(1 + rng.below(4))).map { _ in .string(Vocabulary.words.randomElement(using: &rng)!) }),
            "customer": .map(ObjectValue([
                "name": .string("\(first) \(last)"),
                "email": .string("\(first.lowercased()).\(last.lowercased())@example.com"),
                "address": .map(ObjectValue([
                    "street": .string("\(1 + rng.below(9999)) \(Vocabulary.streets.randomElement(using: &rng)!)"),
                    "city": .string(Vocabulary.cities.randomElement(using: &rng)!),
                    "geo": .geoPoint(GeoPoint(
                        latitude: Double(rng.below(180_000)) / 1000 - 90, longitude: Double(rng.below(360_000)) / 1000 - 180)),
                ])),
            ])),
            "items": .array(items),
        ]
    }

    private func user(rng: inout SeededRandom) -> [String: Value] {
        let first = Vocabulary.firstNames.randomElement(using: &rng)!
        let last = Vocabulary.lastNames.randomElement(using: &rng)!
        return [
            "name": .string("\(first) \(last)"),
            "age": .integer(Int64(18 + rng.below(70))),
            "locale": .string(Vocabulary.locales.randomElement(using: &rng)!),
            "verified": .boolean(rng.below(2) == 0),
            "stats": .map(ObjectValue([
                "views": .integer(Int64(rng.below(1_000_000))), "likes": .integer(Int64(rng.below(50_000))),
            ])),
        ]
    }

    private func message(room: String, rng: inout SeededRandom) -> [String: Value] {
        [
            "room": .string(room),
            "channel": .string(Self.twoDigit("c", rng.below(100))),
            "author": .string("users/\(Vocabulary.firstNames.randomElement(using: &rng)!.lowercased())"),
            "sentAt": .integer(Self.timeBase + Int64(rng.below(Self.timeSpan))),
            "edited": .boolean(false),
            "reactions": .map(ObjectValue([
                "like": .integer(Int64(rng.below(50))), "laugh": .integer(Int64(rng.below(20))),
            ])),
        ]
    }

    /// Adds a `text` field of vocabulary words so that the encoded body is about `documentBytes` long.
    private static func fill(_ object: ObjectValue, rng: inout SeededRandom) -> ObjectValue {
        let room = documentBytes - DocumentCodec.encode(object).count - 8
        var text = ""
        while text.utf8.count < room {
            if !text.isEmpty { text += " " }
            text += Vocabulary.words.randomElement(using: &rng)!
        }
        var filled = object
        filled.fields["text"] = .string(text)
        return filled
    }

    private static func twoDigit(_ prefix: String, _ number: Int) -> String {
        prefix + (number < 10 ? "0" : "") + String(number)
    }
}
