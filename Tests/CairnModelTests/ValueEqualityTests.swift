import Testing
@testable import CairnModel

@Suite("Value equality and hashing")
struct ValueEqualityTests: ValueFixtures {
    @Test("numbers are type-strict: an integer never equals a double of the same value")
    func typeStrictNumbers() {
        #expect(Value.integer(1) != .double(1))
        #expect(Value.compare(.integer(1), .double(1)) == 0)
        #expect(Value.integer(1) == .integer(1))
        #expect(Value.double(1) == .double(1))
    }

    @Test("NaN equals NaN, whatever its sign or payload")
    func nanEqualsNaN() {
        let quiet = Value.double(.nan)
        #expect(quiet == .double(.nan))
        #expect(quiet == .double(-.nan))
        #expect(quiet == .double(.signalingNaN))
        #expect(quiet.hashValue == Value.double(Double(bitPattern: 0x7FF8_0000_0000_0123)).hashValue)
    }

    @Test("-0.0 and 0.0 are not equal (as in the SDKs' bitwise double equality) but compare equal")
    func signedZeros() {
        #expect(Value.double(-0.0) != .double(0.0))
        #expect(Value.compare(.double(-0.0), .double(0.0)) == 0)
    }

    @Test("geopoints compare coordinates numerically, so -0.0 equals 0.0 there")
    func geoPointZeros() {
        let a = Value.geoPoint(GeoPoint(latitude: -0.0, longitude: 1))
        let b = Value.geoPoint(GeoPoint(latitude: 0.0, longitude: 1))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test("strings and map keys are equal only byte for byte, not up to Unicode normalisation")
    func bytewiseStrings() {
        #expect("é" == "e\u{301}")  // Swift's view
        #expect(Value.string("é") != .string("e\u{301}"))
        let nfc = ObjectValue(["é": .null])
        let nfd = ObjectValue(["e\u{301}": .null])
        #expect(nfc != nfd)
        #expect(reference("c/é") != reference("c/e\u{301}"))
    }

    @Test("maps are equal regardless of insertion order; arrays are not")
    func mapsIgnoreOrder() {
        var first = ObjectValue()
        first.fields["a"] = .integer(1)
        first.fields["b"] = .string("x")
        var second = ObjectValue()
        second.fields["b"] = .string("x")
        second.fields["a"] = .integer(1)
        #expect(first == second)
        #expect(Value.map(first).hashValue == Value.map(second).hashValue)
        #expect(Value.array([.integer(1), .integer(2)]) != .array([.integer(2), .integer(1)]))
        #expect(Value.map(first) != .map(ObjectValue(["a": .integer(1)])))
        #expect(Value.map(first) != .map(ObjectValue(["a": .double(1), "b": .string("x")])))
    }

    @Test("server timestamps are equal when their local write times are, whatever the previous value")
    func serverTimestamps() {
        let time = Timestamp(seconds: 5, nanoseconds: 6)
        let a = Value.serverTimestamp(localWriteTime: time, previous: .integer(1))
        let b = Value.serverTimestamp(localWriteTime: time, previous: nil)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != .serverTimestamp(localWriteTime: Timestamp(seconds: 5, nanoseconds: 7), previous: .integer(1)))
        #expect(a != .timestamp(time))
    }

    @Test("values of different types are never equal")
    func differentTypes() {
        for (i, a) in valuesInTypeOrder.enumerated() {
            for (j, b) in valuesInTypeOrder.enumerated() {
                #expect((a == b) == (i == j), "\(a) vs \(b)")
            }
        }
        #expect(Value.null != .boolean(false))
        #expect(Value.string("") != .bytes([]))
        #expect(Value.array([]) != .map(ObjectValue()))
    }

    @Test("equal values hash alike and deduplicate in a Set")
    func setDeduplication() {
        let set: Set<Value> = [
            .double(.nan), .double(-.nan), .integer(1), .double(1), .map(ObjectValue(["a": .null, "b": .null])),
            .map(ObjectValue(["b": .null, "a": .null])), .geoPoint(GeoPoint(latitude: 0, longitude: 0)),
            .geoPoint(GeoPoint(latitude: -0.0, longitude: -0.0)),
        ]
        #expect(set.count == 5)
    }
}
