import Testing
@testable import CairnModel

@Suite("Value ordering")
struct ValueOrderingTests: ValueFixtures {
    /// (a, b, compare(a, b)) for numbers on either side of rounding boundaries, zeros, infinities and NaNs.
    static let numberCases: [(Value, Value, Int)] = [
        (.integer(.max), .double(0x1p63), -1),
        (.integer(.max), .double(0x1p63 - 1024), 1),
        (.integer(.min), .double(-0x1p63), 0),
        (.integer(.min + 1), .double(-0x1p63), 1),
        (.integer(.min), .double(-0x1p63 - 2048), 1),
        (.integer((1 << 53) + 1), .double(0x1p53), 1),
        (.integer((1 << 53) + 1), .double(0x1p53 + 2), -1),
        (.integer((1 << 53) - 1), .double(0x1p53), -1),
        (.integer(1), .double(1), 0),
        (.integer(1), .double(1.000_000_000_000_000_2), -1),
        (.integer(-1), .double(-0.5), -1),
        (.integer(0), .double(-0.0), 0),
        (.integer(0), .double(.leastNonzeroMagnitude), -1),
        (.integer(0), .double(-.leastNonzeroMagnitude), 1),
        (.integer(.max), .double(.infinity), -1),
        (.integer(.min), .double(-.infinity), 1),
        (.integer(.min), .double(.nan), 1),
        (.double(-0.0), .double(0.0), 0),
        (.double(.nan), .double(-.nan), 0),
        (.double(.nan), .double(-.infinity), -1),
        (.double(-.infinity), .double(-.greatestFiniteMagnitude), -1),
        (.double(.greatestFiniteMagnitude), .double(.infinity), -1),
        (.double(-.leastNonzeroMagnitude), .double(-0.0), -1),
    ]

    @Test("every pair of types orders by TypeOrder, whatever the contents")
    func crossTypeTable() {
        for (i, a) in valuesInTypeOrder.enumerated() {
            for (j, b) in valuesInTypeOrder.enumerated() where a.typeOrder != b.typeOrder {
                #expect(Value.compare(a, b) == (i < j ? -1 : 1), "\(a) vs \(b)")
            }
        }
        #expect(TypeOrder.allCases.map(\.rawValue) == Array(0...11))
    }

    @Test("within a type, the table's values are already ascending")
    func withinTypeTable() {
        for (a, b) in zip(valuesInTypeOrder, valuesInTypeOrder.dropFirst()) where a.typeOrder == b.typeOrder {
            #expect(Value.compare(a, b) == -1, "\(a) vs \(b)")
        }
    }

    @Test(
        "integers and doubles compare exactly, with no rounding",
        arguments: numberCases
    )
    func numbers(a: Value, b: Value, expected: Int) {
        #expect(Value.compare(a, b) == expected)
        #expect(Value.compare(b, a) == -expected)
    }

    @Test(
        "strings order by UTF-8 bytes, not UTF-16 code units or Swift's String order",
        arguments: [
            ("\u{FFFF}", "\u{10000}", -1),  // UTF-16: FFFF > D800; UTF-8: EF < F0
            ("\u{FF61}", "😀", -1),
            ("e\u{301}", "é", -1),  // Swift's == says equal; bytes 65 CC 81 < C3 A9
            ("e\u{301}z", "éa", -1),  // Swift's < says greater (it compares "éz" with "éa")
            ("a", "a\u{0}", -1),
            ("Z", "a", -1),
            ("", "\u{0}", -1),
            ("abc", "abd", -1),
        ]
    )
    func strings(a: String, b: String, expected: Int) {
        #expect(Value.compare(.string(a), .string(b)) == expected)
        #expect(Value.compare(.string(b), .string(a)) == -expected)
    }

    @Test("bytes order lexicographically, a proper prefix first")
    func bytes() {
        #expect(Value.compare(.bytes([0x01]), .bytes([0x01, 0x00])) == -1)
        #expect(Value.compare(.bytes([0x7F]), .bytes([0x80])) == -1)
        #expect(Value.compare(.bytes([0xFF]), .bytes([0x00, 0xFF])) == 1)
        #expect(Value.compare(.bytes([]), .bytes([])) == 0)
    }

    @Test("references order by project, database, then path segments (numeric ids first), shorter first")
    func references() {
        #expect(Value.compare(reference("a/b", project: "p"), reference("a/a", project: "q")) == -1)
        #expect(Value.compare(reference("z/z", database: "(default)"), reference("a/a", database: "db")) == -1)
        #expect(Value.compare(reference("a/b"), reference("a/b/c/d")) == -1)
        #expect(Value.compare(reference("a/b/c/d"), reference("a/c")) == -1)
        #expect(Value.compare(reference("a/__id9__"), reference("a/__id10__")) == -1)
        #expect(Value.compare(reference("a/__id99__"), reference("a/!")) == -1)
        #expect(Value.compare(reference("a/\u{FFFF}"), reference("a/\u{10000}")) == -1)
    }

    @Test("timestamps order by seconds then nanoseconds; server timestamps by local write time only")
    func timestamps() {
        let early = Timestamp(seconds: 1, nanoseconds: 999_999_999)
        let late = Timestamp(seconds: 2, nanoseconds: 0)
        #expect(Value.compare(.timestamp(early), .timestamp(late)) == -1)
        #expect(Value.compare(.timestamp(Timestamp(seconds: -1, nanoseconds: 5)), .timestamp(late)) == -1)
        let pendingEarly = Value.serverTimestamp(localWriteTime: early, previous: .integer(9))
        let pendingLate = Value.serverTimestamp(localWriteTime: late, previous: nil)
        #expect(Value.compare(pendingEarly, pendingLate) == -1)
        #expect(Value.compare(pendingEarly, .serverTimestamp(localWriteTime: early, previous: nil)) == 0)
    }

    @Test("geopoints order by latitude then longitude, numerically")
    func geoPoints() {
        let point = { (lat: Double, lng: Double) in Value.geoPoint(GeoPoint(latitude: lat, longitude: lng)) }
        #expect(Value.compare(point(-1, 100), point(0, -100)) == -1)
        #expect(Value.compare(point(0, -100), point(0, 100)) == -1)
        #expect(Value.compare(point(-0.0, 5), point(0, 5)) == 0)
    }

    @Test("arrays order element by element, then shorter first")
    func arrays() {
        #expect(Value.compare(.array([.integer(1), .integer(9)]), .array([.integer(2)])) == -1)
        #expect(Value.compare(.array([.integer(1)]), .array([.integer(1), .null])) == -1)
        #expect(Value.compare(.array([.integer(1)]), .array([.double(1)])) == 0)
        #expect(Value.compare(.array([.string("a")]), .array([.integer(5)])) == 1)
    }

    @Test("maps order by entries in UTF-8 key order, then fewer entries first")
    func maps() {
        let map = { (fields: [String: Value]) in Value.map(ObjectValue(fields)) }
        #expect(Value.compare(map(["a": .integer(2)]), map(["b": .integer(1)])) == -1)
        let ac = map(["a": .integer(1), "c": .integer(1)])
        #expect(Value.compare(ac, map(["a": .integer(1), "b": .integer(9)])) == 1)
        #expect(Value.compare(map(["a": .integer(1)]), map(["a": .integer(1), "b": .null])) == -1)
        #expect(Value.compare(map(["\u{FFFF}": .null]), map(["\u{10000}": .null])) == -1)
        #expect(Value.compare(map(["a": .integer(1), "b": .integer(2)]), map(["b": .integer(2), "a": .double(1)])) == 0)
    }

    @Test("Comparable's < follows compare, and 1 and 1.0 are unordered but not ==")
    func comparableOperator() {
        #expect(Value.integer(1) < .double(1.5))
        #expect(!(Value.integer(1) < .double(1)) && !(Value.double(1) < .integer(1)))
        #expect(Value.integer(1) != .double(1))
        let sorted = [Value.string("b"), .integer(3), .null, .double(2.5)].sorted()
        #expect(sorted == [.null, .double(2.5), .integer(3), .string("b")])
    }
}
