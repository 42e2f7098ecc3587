import Testing
@testable import CairnModel

@Suite("Index key encoding")
struct IndexEncodingTests: ValueFixtures {
    func indexKey(_ columns: [(Value, Bool)]) -> [UInt8] {
        var encoder = IndexKeyEncoder()
        for (value, descending) in columns { encoder.append(value, descending: descending) }
        return encoder.bytes
    }

    func indexKey(_ value: Value, descending: Bool = false) -> [UInt8] { indexKey([(value, descending)]) }

    /// -1, 0 or 1 as unsigned lexicographic byte order says.
    func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Int { BytewiseOrder.compare(a, b) }

    /// Values where exact order is easy to get wrong: rounding neighbours, signed zeros, NaNs, prefixes, escapes.
    var indexEdgeValues: [Value] {
        let references = ["a/b", "a/__id2__", "a/__id10__", "a/__id-1__", "a/__id02__", "a/b/c/d", "a/b\u{0}"]
        let bytes: [[UInt8]] = [[], [0], [0, 0], [0, 1], [0xFF], [0xFF, 0], [1]]
        var values = valuesInTypeOrder
        values += ValueGenerator.integers.map(Value.integer)
        values += ValueGenerator.doubles.map(Value.double)
        values += ValueGenerator.strings.map(Value.string)
        values += bytes.map(Value.bytes)
        values += references.map { reference($0) } + [reference("a/b", database: "db"), reference("a/b", project: "q")]
        values += [.array([.integer(1)]), .array([.integer(1), .null]), .array([.double(1)])]
        values += [.array([.string("a\u{0}")]), .map(ObjectValue(["a": .null])), .map(ObjectValue(["a\u{0}": .null]))]
        values += [.map(ObjectValue(["a": .null, "b": .null])), reference("a\u{0}/b")]
        values += [.geoPoint(GeoPoint(latitude: -0.0, longitude: 0)), .geoPoint(GeoPoint(latitude: 0, longitude: .nan))]
        values += [.vector([]), .vector([1]), .vector([0, 2]), .vector([0, 1]), .vector([-0.0, .nan])]
        values += [.map(ObjectValue(["__type__": .string("__vector__"), "value": .array([.integer(1)])]))]
        return values
    }

    @Test("byte order equals value order for every pair of edge values, ascending and descending")
    func edgePairs() {
        let values = indexEdgeValues
        for a in values {
            for b in values {
                let order = Value.compare(a, b)
                #expect(byteOrder(indexKey(a), indexKey(b)) == order, "\(a) vs \(b)")
                let descending = byteOrder(indexKey(a, descending: true), indexKey(b, descending: true))
                #expect(descending == -order, "\(a) vs \(b)")
            }
        }
    }

    @Test("byte order equals value order for random pairs of every type, ascending and descending")
    func randomPairs() {
        var generator = ValueGenerator(seed: 51)
        for _ in 0..<4000 {
            let a = generator.scalarOrNested(maxDepth: 3)
            let b = generator.chance(1, in: 8) ? ValuePropertyTests.rebuilt(a) : generator.scalarOrNested(maxDepth: 3)
            let order = Value.compare(a, b)
            #expect(byteOrder(indexKey(a), indexKey(b)) == order, "\(a) vs \(b)")
            let descending = byteOrder(indexKey(a, descending: true), indexKey(b, descending: true))
            #expect(descending == -order, "\(a) vs \(b)")
        }
    }

    @Test("keys of 2–3 columns in mixed directions compare like the tuples they encode")
    func tuples() {
        var generator = ValueGenerator(seed: 52)
        // A small pool, so that leading columns often tie or are prefixes of one another.
        let pool = (0..<40).map { _ in generator.value(depth: 1) } + indexEdgeValues.prefix(30)
        for _ in 0..<4000 {
            let width = Int.random(in: 2...3, using: &generator.random)
            let directions = (0..<width).map { _ in Bool.random(using: &generator.random) }
            let a = directions.map { _ in generator.pick(pool) }
            let b = directions.map { _ in generator.pick(pool) }
            var expected = 0
            for (column, descending) in directions.enumerated() where expected == 0 {
                let order = Value.compare(a[column], b[column])
                expected = descending ? -order : order
            }
            let actual = byteOrder(indexKey(Array(zip(a, directions))), indexKey(Array(zip(b, directions))))
            #expect(actual == expected, "\(a) vs \(b), descending \(directions)")
        }
    }

    @Test("values that compare equal encode identically: 1 and 1.0, -0.0 and 0.0, NaNs, 2^60 and 0x1p60")
    func equivalentValuesShareBytes() {
        #expect(indexKey(.integer(1)) == indexKey(.double(1)))
        #expect(indexKey(.double(-0.0)) == indexKey(.integer(0)))
        #expect(indexKey(.double(.nan)) == indexKey(.double(-.nan)))
        #expect(indexKey(.integer(1 << 60)) == indexKey(.double(0x1p60)))
        #expect(indexKey(.array([.integer(2)])) == indexKey(.array([.double(2)])))
    }

    @Test("integers above 2^53 keep their exact order, where Firestore's double encoding merges them")
    func largeIntegers() {
        let ascending: [Value] = [
            .double(0x1p53), .integer((1 << 53) + 1), .double(0x1p53 + 2), .integer((1 << 53) + 3),
            .double(0x1p63 - 1024), .integer(.max - 1), .integer(.max), .double(0x1p63),
        ]
        for (a, b) in zip(ascending, ascending.dropFirst()) {
            #expect(byteOrder(indexKey(a), indexKey(b)) == -1, "\(a) vs \(b)")
        }
        #expect(indexKey(.integer(.max)).count == 11)  // label, 8 bytes of double, 2 of tiebreak
        #expect(indexKey(.integer(1000)).count == 9)
    }

    @Test("labels follow Firestore's index value writer, NaN just before numbers")
    func labels() {
        let firstBytes = valuesInTypeOrder.map { indexKey($0)[0] }
        let labels: [UInt8] = [
            0x05, 0x0A, 0x0D, 0x0F, 0x0F, 0x14, 0x16, 0x19, 0x19, 0x1E, 0x1E, 0x25, 0x2D, 0x32, 0x32, 0x35, 0x35, 0x37,
        ]
        #expect(firstBytes == labels)
        #expect(indexKey(.string("a\u{0}\u{FF}")) == [0x19, 0x61, 0x00, 0xFF, 0xC3, 0xBF, 0x00, 0x01])
        #expect(indexKey(.bytes([0x00, 0xFF])) == [0x1E, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x01])
        #expect(indexKey(.array([])) == [0x32, 0x02])
    }

    @Test("a descending column is the byte complement of the ascending one")
    func descendingIsComplement() {
        var generator = ValueGenerator(seed: 53)
        for _ in 0..<200 {
            let value = generator.value()
            #expect(indexKey(value, descending: true) == indexKey(value).map { ~$0 })
        }
    }

    @Test("document keys order segment by segment, numeric ids first, in either direction")
    func documentKeys() {
        let paths = ["a/b", "a/__id-5__", "a/__id3__", "a/__id03__", "a/__id20__", "a/b/c/d", "a/b\u{0}", "a/c", "b/a"]
        let keys = (paths + ["a/é", "a/e\u{301}"]).map(documentKey)
        for a in keys {
            for b in keys {
                let order = PathSegmentOrder.compare(a.path.segments, b.path.segments)
                for descending in [false, true] {
                    var x = IndexKeyEncoder()
                    x.appendDocumentKey(a, descending: descending)
                    var y = IndexKeyEncoder()
                    y.appendDocumentKey(b, descending: descending)
                    #expect(byteOrder(x.bytes, y.bytes) == (descending ? -order : order), "\(a) vs \(b)")
                }
            }
        }
    }

    @Test("a value column followed by the document key orders by value, then key")
    func valueThenKey() {
        let rows: [(Value, String)] = [
            (.integer(1), "c/z"), (.double(1), "c/a"), (.integer(2), "c/a"), (.string(""), "c/a"),
        ]
        let encoded = rows.map { value, key in
            var encoder = IndexKeyEncoder()
            encoder.append(value)
            encoder.appendDocumentKey(documentKey(key))
            return encoder.bytes
        }
        let sortedRows = encoded.indices.sorted { byteOrder(encoded[$0], encoded[$1]) < 0 }
        #expect(sortedRows == [1, 0, 2, 3])
    }
}
