import CairnTestSupport
import Testing
@testable import CairnModel

/// The shared seeded generator, for every randomized suite of this target.
typealias SeededRandom = CairnTestSupport.SeededRandom

/// Helpers shared by the value and codec suites (a protocol rather than globals, so that they cannot clash with
/// other suites' helpers in this test module).
protocol ValueFixtures {}

extension ValueFixtures {
    /// A field path from a dotted string (test input only: no escaping).
    func path(_ dotted: String) -> FieldPath {
        FieldPath(segments: dotted.split(separator: ".").map(String.init))
    }

    /// The document key at a slash-separated path.
    func documentKey(_ path: String) -> DocumentKey {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return DocumentKey(path: ResourcePath(segments: segments))
    }

    /// A reference value to the document at a slash-separated path.
    func reference(_ path: String, project: String = "p", database: String = "(default)") -> Value {
        .reference(DatabaseID(projectID: project, databaseID: database), documentKey(path))
    }

    /// One value of each type, in Firestore's cross-type order (integers and doubles share the number rank);
    /// values of the same type are ascending.
    var valuesInTypeOrder: [Value] {
        [
            .null,
            .boolean(true),
            .double(.nan),
            .integer(Int64.min),
            .double(.infinity),
            .timestamp(Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999)),
            .serverTimestamp(localWriteTime: Timestamp(seconds: 0, nanoseconds: 0), previous: nil),
            .string(""),
            .string("\u{10FFFF}"),
            .bytes([]),
            .bytes([0xFF, 0xFF]),
            reference("a/b", project: ""),
            .geoPoint(GeoPoint(latitude: -90, longitude: -180)),
            .array([]),
            .array([.map(ObjectValue(["z": .null]))]),
            .vector([]),
            .vector([.infinity, .infinity]),
            .map(ObjectValue()),
        ]
    }
}

/// Random values of every case, nested up to a depth, drawn mostly from small pools of edge cases so that
/// random pairs often tie, share prefixes or sit on either side of a rounding boundary.
struct ValueGenerator {
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    static let integers: [Int64] = [
        .min, .min + 1, -(1 << 53) - 1, -(1 << 53), -1, 0, 1, 2, 3, (1 << 53) - 1, 1 << 53, (1 << 53) + 1,
        (1 << 53) + 2, (1 << 62) + 511, (1 << 62) + 512, (1 << 62) + 513, .max - 512, .max - 511, .max - 1, .max,
    ]
    static let doubles: [Double] = [
        .nan, -.nan, .infinity, -.infinity, 0, -0.0, 1, -1, 0.5, 1.5, -2.5, 0x1p53, 0x1p53 + 2, 0x1p62, 0x1p63,
        -0x1p63, 0x1p63 - 1024, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
        -.leastNonzeroMagnitude, .leastNormalMagnitude, 9_007_199_254_740_993.0, 1e300,
    ]
    static let strings: [String] = [
        "", "a", "aa", "ab", "b", "A", "z", "\u{0}", "a\u{0}", "\u{7F}", "\u{80}", "é", "e\u{301}", "\u{FFFF}",
        "\u{10000}", "😀", "\u{FF}a",
    ]
    static let keys: [String] = ["", "a", "aa", "b", "é", "\u{FFFF}", "😀", "x.y", "__name__"]
    static let segments: [String] = ["a", "b", "aa", "é", "__id1__", "__id10__", "__id-3__", "__id01__", "c d"]
    static let databases: [DatabaseID] = [
        DatabaseID(projectID: "p"), DatabaseID(projectID: "p", databaseID: "db2"), DatabaseID(projectID: "q"),
    ]

    mutating func pick<T>(_ pool: [T]) -> T { pool[Int.random(in: 0..<pool.count, using: &random)] }
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        Int.random(in: 0..<denominator, using: &random) < numerator
    }

    /// Half the time a scalar, otherwise a value nested up to `maxDepth`: a mix in which pairs often tie.
    mutating func scalarOrNested(maxDepth: Int) -> Value {
        value(depth: chance(1, in: 2) ? 0 : maxDepth)
    }

    /// A value of any case; arrays and maps only while `depth > 0`.
    mutating func value(depth: Int = 4) -> Value {
        let cases = depth > 0 ? 12 : 10
        switch Int.random(in: 0..<cases, using: &random) {
        case 0: return .null
        case 1: return .boolean(chance(1, in: 2))
        case 2: return .integer(chance(3, in: 4) ? pick(Self.integers) : Int64.random(in: -1000...1000, using: &random))
        case 3: return .double(double())
        case 4: return .timestamp(timestamp())
        case 5: return .serverTimestamp(localWriteTime: timestamp(), previous: chance(1, in: 2) ? nil : value(depth: 0))
        case 6: return .string(chance(3, in: 4) ? pick(Self.strings) : pick(Self.strings) + pick(Self.strings))
        case 7: return .bytes((0..<Int.random(in: 0...3, using: &random)).map { _ in pick([0, 1, 0x7F, 0xFF]) })
        case 8:
            let count = chance(1, in: 2) ? 2 : 4
            let key = DocumentKey(path: ResourcePath(segments: (0..<count).map { _ in pick(Self.segments) }))
            return .reference(pick(Self.databases), key)
        case 9: return .geoPoint(GeoPoint(latitude: pick([-90, -0.0, 0, 1.5, 90]), longitude: pick([-180, 0, 2, 180])))
        case 10: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth - 1) })
        default:
            // One map in four is a vector: Firestore's vector map, with its own place in the order.
            if chance(1, in: 4) { return .vector((0..<Int.random(in: 0...3, using: &random)).map { _ in double() }) }
            return .map(object(depth: depth - 1, maxCount: 3))
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Double(bitPattern: random.next())
        case 1: return Double(pick(Self.integers))
        case 2: return Double(Int.random(in: -1000...1000, using: &random)) / 4
        default: return pick(Self.doubles)
        }
    }

    mutating func timestamp() -> Timestamp {
        Timestamp(seconds: pick([-62_135_596_800, -1, 0, 1, 1_700_000_000]), nanoseconds: pick([0, 1, 999_999_999]))
    }

    /// A map with up to `maxCount` entries whose keys come from a small pool, values nested up to `depth`.
    mutating func object(depth: Int, maxCount: Int) -> ObjectValue {
        var fields: [String: Value] = [:]
        for _ in 0..<Int.random(in: 0...maxCount, using: &random) { fields[pick(Self.keys)] = value(depth: depth) }
        return ObjectValue(fields)
    }

    /// A field path of 1–3 segments from the key pool (often present in a generated object, sometimes not).
    mutating func fieldPath() -> FieldPath {
        FieldPath(segments: (0..<Int.random(in: 1...3, using: &random)).map { _ in pick(Self.keys) })
    }
}

@Suite("Random value generator")
struct ValueGeneratorTests {
    @Test("the same seed produces the same values")
    func deterministic() {
        var first = ValueGenerator(seed: 7)
        var second = ValueGenerator(seed: 7)
        for _ in 0..<200 { #expect(first.value() == second.value()) }
    }

    @Test("every type order is generated, with nesting up to depth 4 and no deeper")
    func coversEveryCase() {
        var generator = ValueGenerator(seed: 1)
        var seen = Set<TypeOrder>()
        var deepest = 0
        for _ in 0..<2000 {
            let value = generator.value()
            seen.insert(value.typeOrder)
            deepest = max(deepest, Self.depth(value))
        }
        #expect(seen == Set(TypeOrder.allCases))
        #expect(deepest == 4)
    }

    static func depth(_ value: Value) -> Int {
        switch value {
        case .array(let values): 1 + (values.map(depth).max() ?? 0)
        case .map(let object): 1 + (object.fields.values.map(depth).max() ?? 0)
        default: 0
        }
    }
}
