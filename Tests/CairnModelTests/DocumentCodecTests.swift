import Testing
@testable import CairnModel

/// Stricter than `==`: also tells -0.0 from 0.0 by bits, NaN payloads apart, and compares the previous values
/// of server timestamps, so that a round trip is shown to keep every bit.
func identical(_ a: Value, _ b: Value) -> Bool {
    switch (a, b) {
    case let (.double(x), .double(y)):
        return x.bitPattern == y.bitPattern
    case let (.geoPoint(x), .geoPoint(y)):
        return x.latitude.bitPattern == y.latitude.bitPattern && x.longitude.bitPattern == y.longitude.bitPattern
    case let (.serverTimestamp(x, xPrevious), .serverTimestamp(y, yPrevious)):
        guard x == y else { return false }
        switch (xPrevious, yPrevious) {
        case (nil, nil): return true
        case let (xp?, yp?): return identical(xp, yp)
        default: return false
        }
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy(identical)
    case let (.map(x), .map(y)):
        return identical(x, y)
    default:
        return a == b
    }
}

func identical(_ a: ObjectValue, _ b: ObjectValue) -> Bool {
    a == b && a.fields.allSatisfy { key, value in identical(value, b.fields[key]!) }
}

@Suite("Document codec")
struct DocumentCodecTests: ValueFixtures {
    @Test("the worked example in the grammar comment encodes byte for byte")
    func workedExample() {
        let bytes = DocumentCodec.encode(ObjectValue(["b": .array([.string("x")]), "a": .integer(1)]))
        #expect(bytes == [0x01, 0x02, 0x01, 0x61, 0x02, 0x03, 0x02, 0x01, 0x62, 0x05, 0x0C, 0x01, 0x08, 0x01, 0x78])
    }

    @Test("edge values round-trip bit for bit: NaN payloads, -0.0, extremes, empties, server timestamps")
    func edgeValues() throws {
        let object = ObjectValue([
            "nan": .double(Double(bitPattern: 0x7FF8_0000_0000_0ABC)),
            "negativeNaN": .double(-.nan),
            "negativeZero": .double(-0.0),
            "min": .integer(.min), "max": .integer(.max),
            "tiny": .double(.leastNonzeroMagnitude), "infinity": .double(-.infinity),
            "emptyString": .string(""), "emptyBytes": .bytes([]), "emptyArray": .array([]), "emptyMap": .map(.empty),
            "": .string("empty key"),
            "unicode": .string("e\u{301} é 😀 \u{0}"),
            "time": .timestamp(Timestamp(seconds: -62_135_596_800, nanoseconds: 999_999_999)),
            "pending": .serverTimestamp(localWriteTime: Timestamp(seconds: 1, nanoseconds: 2), previous: nil),
            "pendingWithPrevious": .serverTimestamp(
                localWriteTime: Timestamp(seconds: 3, nanoseconds: 4), previous: .array([.double(-0.0)])),
            "reference": reference("users/__id7__/posts/é", project: "proj", database: "db"),
            "geo": .geoPoint(GeoPoint(latitude: -0.0, longitude: 180)),
            "bytes": .bytes(Array(0...255)),
        ])
        let decoded = try DocumentCodec.decode(DocumentCodec.encode(object))
        #expect(identical(decoded, object))
        #expect(DocumentCodec.encode(ObjectValue.empty) == [0x01, 0x00])
    }

    @Test("values longer than 127 bytes get multi-byte length prefixes and still round-trip")
    func longValues() throws {
        for length in [127, 128, 16_383, 16_384, 70_000] {
            let long = Value.string(String(repeating: "x", count: length))
            let object = ObjectValue(["a": .map(ObjectValue(["s": long])), "b": .integer(1)])
            let bytes = DocumentCodec.encode(object)
            #expect(try DocumentCodec.decode(bytes) == object)
            let b = try bytes.withUnsafeBytes { try DocumentCodec.value(at: path("b"), in: $0) }
            #expect(b == .integer(1))
        }
    }

    @Test("nesting up to maxNestingDepth round-trips")
    func deepNesting() throws {
        var value = Value.integer(1)
        for level in 0..<DocumentCodec.maxNestingDepth {
            value = level % 2 == 0 ? .array([value]) : .map(ObjectValue(["k": value]))
        }
        let object = ObjectValue(["deep": value])
        #expect(try DocumentCodec.decode(DocumentCodec.encode(object)) == object)
    }

    @Test("random documents round-trip, and equal documents encode identically")
    func randomRoundTrip() throws {
        var generator = ValueGenerator(seed: 31)
        for _ in 0..<400 {
            let object = generator.object(depth: 4, maxCount: 6)
            let bytes = DocumentCodec.encode(object)
            #expect(identical(try DocumentCodec.decode(bytes), object))
            guard case .map(let copy) = ValuePropertyTests.rebuilt(.map(object)) else { continue }
            #expect(DocumentCodec.encode(copy) == bytes)
        }
    }

    @Test("value(at:in:) agrees with decode(...).value(at:) on random documents and paths")
    func singleFieldMatchesFullDecode() throws {
        var generator = ValueGenerator(seed: 32)
        for _ in 0..<400 {
            let object = generator.object(depth: 4, maxCount: 9)
            let bytes = DocumentCodec.encode(object)
            for _ in 0..<4 {
                let fieldPath = generator.fieldPath()
                let expected = try DocumentCodec.decode(bytes).value(at: fieldPath)
                let actual = try bytes.withUnsafeBytes { try DocumentCodec.value(at: fieldPath, in: $0) }
                switch (actual, expected) {
                case (nil, nil): break
                case let (a?, e?): #expect(identical(a, e), "\(fieldPath)")
                default: Issue.record("\(fieldPath): \(String(describing: actual)) vs \(String(describing: expected))")
                }
            }
            let whole = try bytes.withUnsafeBytes { try DocumentCodec.value(at: FieldPath(segments: []), in: $0) }
            #expect(whole == .map(object))
        }
    }

    @Test("reading one field skips the others: timings printed for comparison (no assertion)")
    func singleFieldTiming() throws {
        var generator = ValueGenerator(seed: 33)
        var fields: [String: Value] = [:]
        for index in 0..<60 {
            fields["field\(index)"] = .map(generator.object(depth: 3, maxCount: 6))
        }
        fields["target"] = .integer(42)
        let bytes = DocumentCodec.encode(ObjectValue(fields))
        let rounds = 200
        let clock = ContinuousClock()
        var found = 0
        let full = try clock.measure {
            for _ in 0..<rounds where try DocumentCodec.decode(bytes).value(at: path("target")) != nil { found += 1 }
        }
        let single = try clock.measure {
            for _ in 0..<rounds {
                let value = try bytes.withUnsafeBytes { try DocumentCodec.value(at: path("target"), in: $0) }
                if value != nil { found += 1 }
            }
        }
        #expect(found == 2 * rounds)
        print(
            "DocumentCodec, \(bytes.count)-byte document, one field read \(rounds) times: "
                + "full decode \(full / rounds) per read, value(at:in:) \(single / rounds) per read"
        )
    }
}
