import CairnCoreTestSupport
import CairnCore
import Cairn
import CairnTestSupport
import Foundation
import Testing

/// Random documents written through the public API, offline on a persistent cache: the write path accepts
/// exactly the documents that keep Firestore's rules (an independent model below), and everything it accepts
/// is read back identically after a restart, by a cache that opens and answers without error.
@Suite("End to end: write validation property")
struct EndToEndWriteValidationPropertyTests {
    @Test("Accepted writes are exactly the valid ones and read back identically after a restart", arguments: [1, 2, 3])
    func acceptedWritesReadBack(seed: UInt64) async throws {
        let env = EndToEndEnvironment()
        var generator = DocumentGenerator(seed: seed, db: env.db)
        var accepted: [String: [String: Any]] = [:]
        var refused = 0
        for index in 0..<120 {
            let id = "doc\(index)"
            let document = generator.document(id: id)
            let ref = env.db.collection("prop").document(id)
            let merge = generator.chance(0.3)
            let outcome = try await writeOutcome(env) { ref.setData(document.data, merge: merge, completion: $0) }
            if document.problems.isEmpty {
                #expect(outcome == nil, "seed \(seed), \(id): a valid document was refused: \(String(describing: outcome))")
                if outcome == nil { accepted[id] = document.data }
            } else {
                refused += 1
                #expect(firestoreCode(outcome) == .invalidArgument,
                        "seed \(seed), \(id): \(document.problems) gave \(String(describing: outcome))")
            }
        }
        #expect(accepted.count > 40 && refused > 20, "seed \(seed): \(accepted.count) accepted, \(refused) refused")
        try await env.restart()
        let all = try await env.db.collection("prop").getDocuments(source: .cache)
        #expect(Set(all.documents.map(\.documentID)) == Set(accepted.keys))
        for (id, data) in accepted {
            let snapshot = try await env.db.collection("prop").document(id).getDocument(source: .cache)
            let stored = try #require(snapshot.data(), "seed \(seed), \(id) is missing after the restart")
            #expect(sameValue(stored, data), "seed \(seed), \(id) changed: wrote \(data), read \(stored)")
        }
        await env.tearDown()
    }
}

/// Firestore equality of API values as read back: exact strings (byte for byte), NaN equal to NaN.
func sameValue(_ a: Any, _ b: Any) -> Bool {
    switch (a, b) {
    case let (x as [String: Any], y as [String: Any]):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
    case let (x as [Any], y as [Any]):
        return x.count == y.count && zip(x, y).allSatisfy(sameValue)
    case let (x as String, y as String):
        return x.utf8.elementsEqual(y.utf8)
    case let (x as Int64, y as Int64):
        return x == y
    case let (x as Double, y as Double):
        return x == y || (x.isNaN && y.isNaN)
    case let (x as Bool, y as Bool):
        return x == y
    case (is NSNull, is NSNull):
        return true
    case let (x as Timestamp, y as Timestamp):
        return x == y
    case let (x as Data, y as Data):
        return x == y
    case let (x as GeoPoint, y as GeoPoint):
        return x == y
    case let (x as DocumentReference, y as DocumentReference):
        return x.path == y.path
    default:
        return false
    }
}

/// Random documents, each with the rules it breaks according to this model of Firestore's limits: maps and
/// arrays at most 20 deep, no array directly in an array, no empty or `__.*__` field names, timestamps and
/// geopoints in range, at most 1,048,576 bytes (Firestore storage size; only the near-limit documents come
/// close, and their size is computed exactly).
struct DocumentGenerator {
    struct Document {
        var data: [String: Any]
        var problems: [String]
    }

    private var random: SeededRandom
    private let db: Firestore
    private var problems: [String] = []

    init(seed: UInt64, db: Firestore) {
        random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15)
        self.db = db
    }

    private mutating func next() -> UInt64 { random.next() }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

    mutating func chance(_ probability: Double) -> Bool { Double(next() % 1_000_000) < probability * 1_000_000 }

    mutating func document(id: String) -> Document {
        problems = []
        if chance(0.05) { return nearSizeLimit(id: id) }
        let depth: Int
        switch int(0...19) {
        case 0...11: depth = int(0...5)
        case 12...16: depth = int(18...23)
        case 17...18: depth = int(95...106)
        default: depth = int(300...400)
        }
        var data: [String: Any] = [:]
        for _ in 0..<int(1...4) { data[freshName(in: data)] = scalar() }
        data["deep"] = value(chain: depth, depth: 1, inArray: false)
        return Document(data: data, problems: problems)
    }

    /// Two string fields, "a" and "b", together within a few bytes of 1 MiB (each far below the 1,048,487-byte
    /// field value limit): name "prop/<id>" (5 + id + 1 + 16 bytes), each field name (2) and string
    /// (length + 1), and 32.
    private mutating func nearSizeLimit(id: String) -> Document {
        let a = int(400_000...600_000)
        let overhead = (5 + id.utf8.count + 1 + 16) + (2 + a + 1) + 2 + 1 + 32
        let b = 1_048_576 - overhead + int(-2...2)
        if overhead + b > 1_048_576 { problems.append("size \(overhead + b)") }
        return Document(
            data: ["a": String(repeating: "a", count: a), "b": String(repeating: "b", count: b)], problems: problems)
    }

    /// A value nesting `chain` more maps or arrays, itself (when a container) at `depth`.
    private mutating func value(chain: Int, depth: Int, inArray: Bool) -> Any {
        guard chain > 0 else { return chance(0.2) ? shallowContainer(depth: depth, inArray: inArray) : scalar() }
        let makeArray = inArray ? chance(0.03) : chance(0.4)
        if depth > 20 { problems.append("depth \(depth)") }
        if makeArray {
            if inArray { problems.append("nested array at depth \(depth)") }
            var elements: [Any] = (0..<int(0...2)).map { _ in scalar() }
            elements.insert(value(chain: chain - 1, depth: depth + 1, inArray: true), at: int(0...elements.count))
            return elements
        }
        var fields: [String: Any] = [:]
        for _ in 0..<int(0...2) { fields[freshName(in: fields)] = scalar() }
        fields[freshName(in: fields)] = value(chain: chain - 1, depth: depth + 1, inArray: false)
        return fields
    }

    /// An empty or one-level map or array.
    private mutating func shallowContainer(depth: Int, inArray: Bool) -> Any {
        if depth > 20 { problems.append("depth \(depth)") }
        if !inArray && chance(0.5) { return (0..<int(0...3)).map { _ in scalar() } as [Any] }
        var fields: [String: Any] = [:]
        for _ in 0..<int(0...3) { fields[freshName(in: fields)] = scalar() }
        return fields
    }

    /// A field name not in `fields` yet, so that no value (and no rule it breaks) is overwritten.
    private mutating func freshName(in fields: [String: Any]) -> String {
        while true {
            let name = fieldName()
            if fields[name] == nil {
                if name.isEmpty { problems.append("empty field name") }
                if name.utf8.count >= 4 && name.hasPrefix("__") && name.hasSuffix("__") {
                    problems.append("reserved field name \(name)")
                }
                return name
            }
        }
    }

    /// Mostly ordinary names (dots, spaces, backquotes and non-ASCII included), sometimes reserved or empty.
    private mutating func fieldName() -> String {
        if chance(0.01) { return "__r\(int(0...9))__" }
        if chance(0.005) { return "" }
        let alphabet = Array("abcxyz_.é😀 `")
        return String((0..<int(1...6)).map { _ in alphabet[int(0...(alphabet.count - 1))] })
    }

    private mutating func scalar() -> Any {
        switch int(0...10) {
        case 0: return NSNull()
        case 1: return chance(0.5)
        case 2: return Int64(bitPattern: next())
        case 3: return chance(0.05) ? Double.nan : Double(Int64(bitPattern: next()) % 1_000_000) / 7
        case 4: return string(maxLength: chance(0.05) ? 2_000 : 40)
        case 5: return Data((0..<int(0...64)).map { _ in UInt8(truncatingIfNeeded: next()) })
        case 6:
            if chance(0.02) {
                problems.append("timestamp out of range")
                return Timestamp(seconds: 253_402_300_800, nanoseconds: 0)
            }
            return Timestamp(seconds: Int64(int(-62_135_596_800...253_402_300_799)), nanoseconds: Int32(int(0...999_999_999)))
        case 7:
            if chance(0.02) {
                problems.append("latitude out of range")
                return GeoPoint(latitude: 91, longitude: 0)
            }
            return GeoPoint(latitude: Double(int(-90...90)), longitude: Double(int(-180...180)) / 2)
        case 8: return db.collection("refs").document("r\(int(0...99))")
        default: return string(maxLength: 12)
        }
    }

    private mutating func string(maxLength: Int) -> String {
        let alphabet = Array("abc XYZ 09 \u{0} é ß 日本 😀 \n")
        return String((0..<int(0...maxLength)).map { _ in alphabet[int(0...(alphabet.count - 1))] })
    }
}
