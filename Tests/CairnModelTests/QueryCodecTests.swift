import Testing
@testable import CairnModel

/// Random queries of every shape, built with the trusted initialiser: paths and collection groups, filter trees
/// of ANDs and ORs with every operator and value type, order bys (sometimes on `__name__`), either limit type,
/// and cursors.
struct QueryGenerator {
    var values: ValueGenerator

    init(seed: UInt64) { values = ValueGenerator(seed: seed) }

    static let groups = ["messages", "é", "a b", "__id1__", ""]

    mutating func query() -> Query {
        let path = ResourcePath(segments: (0..<Int.random(in: 0...4, using: &values.random)).map { _ in values.pick(ValueGenerator.segments) })
        let group = values.chance(1, in: 3) ? values.pick(Self.groups) : nil
        let filters = (0..<Int.random(in: 0...3, using: &values.random)).map { _ in filter(depth: 3) }
        let orderBy = (0..<Int.random(in: 0...3, using: &values.random)).map { _ in
            OrderBy(values.chance(1, in: 4) ? .documentKey : values.fieldPath(), descending: values.chance(1, in: 2))
        }
        let limit: Int? = values.chance(1, in: 2) ? values.pick([1, 2, 10, 127, 128, 1 << 40, Int.max]) : nil
        return Query(
            path: path, collectionGroup: group, filters: filters, explicitOrderBy: orderBy, limit: limit,
            limitType: values.chance(1, in: 2) ? .last : .first, startAt: bound(), endAt: bound())
    }

    mutating func filter(depth: Int) -> Filter {
        if depth > 0, values.chance(1, in: 3) {
            let children = (0..<Int.random(in: 0...3, using: &values.random)).map { _ in filter(depth: depth - 1) }
            return .composite(CompositeFilter(values.chance(1, in: 2) ? .and : .or, children))
        }
        let op = values.pick(FilterOperator.allCases)
        let value = op.takesArrayOfValues ? .array((0..<3).map { _ in values.value(depth: 1) }) : values.value()
        return .field(FieldFilter(values.chance(1, in: 5) ? .documentKey : values.fieldPath(), op, value))
    }

    mutating func bound() -> Bound? {
        guard values.chance(1, in: 2) else { return nil }
        let position = (0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.value(depth: 2) }
        return Bound(position: position, inclusive: values.chance(1, in: 2))
    }
}

@Suite("Query codec")
struct QueryCodecTests {
    /// Every part of the query, compared structurally (Query's `==` compares targets, which hides explicit
    /// `__name__` order bys and the limit type of a query without a limit).
    func expectIdentical(_ decoded: Query, _ original: Query, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(decoded.path == original.path, sourceLocation: sourceLocation)
        #expect(decoded.collectionGroup == original.collectionGroup, sourceLocation: sourceLocation)
        #expect(decoded.filters == original.filters, sourceLocation: sourceLocation)
        #expect(decoded.explicitOrderBy == original.explicitOrderBy, sourceLocation: sourceLocation)
        #expect(decoded.limit == original.limit && decoded.limitType == original.limitType, sourceLocation: sourceLocation)
        #expect(decoded.startAt == original.startAt && decoded.endAt == original.endAt, sourceLocation: sourceLocation)
        #expect(decoded == original, sourceLocation: sourceLocation)
        #expect(decoded.canonicalID == original.canonicalID, sourceLocation: sourceLocation)
        #expect(decoded.target.canonicalID == original.target.canonicalID, sourceLocation: sourceLocation)
    }

    @Test("the worked example of the grammar comment encodes byte for byte as documented")
    func workedExample() throws {
        let query = try Query(path: ResourcePath(parsing: "rooms"))
            .filtered(by: .field(FieldFilter(FieldPath(["size"]), .greaterThanOrEqual, .integer(2))))
            .limited(to: 10)
        let expected: [UInt8] = [
            0x01, 0x01, 0x05, 0x72, 0x6F, 0x6F, 0x6D, 0x73, 0x00, 0x01, 0x00, 0x01, 0x04, 0x73, 0x69, 0x7A, 0x65,
            0x04, 0x03, 0x01, 0x03, 0x04, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00,
        ]
        #expect(QueryCodec.encode(query) == expected)
        expectIdentical(try QueryCodec.decode(expected), query)
    }

    @Test("random queries of every shape decode to identical queries with the same canonical id")
    func randomRoundTrip() throws {
        var generator = QueryGenerator(seed: 11)
        var operators = Set<FilterOperator>()
        var types = Set<TypeOrder>()
        var junctions = Set<CompositeFilter.Operator>()
        for _ in 0..<1500 {
            let query = generator.query()
            expectIdentical(try QueryCodec.decode(QueryCodec.encode(query)), query)
            for filter in query.filters { Self.collect(filter, &operators, &types, &junctions) }
            for value in (query.startAt?.position ?? []) + (query.endAt?.position ?? []) { types.insert(value.typeOrder) }
        }
        #expect(operators == Set(FilterOperator.allCases))
        #expect(types == Set(TypeOrder.allCases))
        #expect(junctions == [.and, .or])
    }

    static func collect(
        _ filter: Filter, _ operators: inout Set<FilterOperator>, _ types: inout Set<TypeOrder>,
        _ junctions: inout Set<CompositeFilter.Operator>
    ) {
        switch filter {
        case .field(let field):
            operators.insert(field.op)
            types.insert(field.value.typeOrder)
        case .composite(let composite):
            junctions.insert(composite.op)
            for child in composite.filters { collect(child, &operators, &types, &junctions) }
        }
    }

    @Test("queries built by the validating builders round-trip too (document, collection group, limitToLast)")
    func builtQueries() throws {
        let rooms = try Query(path: ResourcePath(parsing: "rooms"))
        let queries = [
            Query(path: try ResourcePath(parsing: "rooms/a")),
            Query(path: .root, collectionGroup: "messages"),
            try rooms.ordered(by: OrderBy(FieldPath(["score"]))).limitedToLast(3),
            try rooms.filtered(by: .or([
                .field(FieldFilter(FieldPath(["a"]), .equal, .integer(1))),
                .and([
                    .field(FieldFilter(FieldPath(["b"]), .greaterThan, .double(2.5))),
                    .field(FieldFilter(FieldPath(["c"]), .in, .array([.string("x"), .null]))),
                ]),
            ])),
        ]
        for query in queries { expectIdentical(try QueryCodec.decode(QueryCodec.encode(query)), query) }
    }

    @Test("every truncation of an encoded query throws dataLoss")
    func truncation() {
        var generator = QueryGenerator(seed: 12)
        for _ in 0..<60 {
            let bytes = QueryCodec.encode(generator.query())
            for length in 0..<bytes.count {
                #expect(throws: ModelError.self) { try QueryCodec.decode(Array(bytes[..<length])) }
            }
        }
    }

    @Test("flipped bytes and random garbage either decode or throw dataLoss, never trap")
    func garbage() {
        var generator = QueryGenerator(seed: 13)
        var random = SeededRandom(seed: 14)
        for _ in 0..<200 {
            var bytes = QueryCodec.encode(generator.query())
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            expectDecodesOrLosesData(bytes)
            expectDecodesOrLosesData((0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
    }

    func expectDecodesOrLosesData(_ bytes: [UInt8]) {
        do { _ = try QueryCodec.decode(bytes) } catch { #expect(error.code == .dataLoss) }
    }

    func expectDataLoss(_ bytes: [UInt8], mentioning phrase: String) {
        #expect {
            try QueryCodec.decode(bytes)
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .dataLoss && error.message.contains(phrase)
        }
    }

    @Test("a newer version, an unknown operator, kind or flag, and trailing bytes are refused with what is wrong")
    func damage() {
        let rooms: [UInt8] = [0x01, 0x01, 0x05, 0x72, 0x6F, 0x6F, 0x6D, 0x73, 0x00]
        let tail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00]
        expectDataLoss([0x02] + rooms.dropFirst(), mentioning: "newer Cairn")
        expectDataLoss([0x00], mentioning: "not a Cairn query")
        expectDataLoss(rooms + [0x01, 0x00, 0x01, 0x01, 0x61, 0x0A, 0x02, 0x01, 0x00] + tail, mentioning: "unknown filter operator 10")
        expectDataLoss(rooms + [0x01, 0x07, 0x00] + tail, mentioning: "unknown filter kind 7")
        expectDataLoss(rooms + [0x00, 0x00, 0x02, 0x00, 0x00, 0x00], mentioning: "expected 0 or 1")
        expectDataLoss(rooms + [0x00] + tail + [0x00], mentioning: "unexpected bytes after the query")
        expectDataLoss(rooms + [0xFF, 0xFF, 0xFF, 0x7F] + tail, mentioning: "exceeds")
        // A filter value with a byte after the value.
        expectDataLoss(rooms + [0x01, 0x00, 0x01, 0x01, 0x61, 0x02, 0x03, 0x01, 0x00, 0x00] + tail, mentioning: "unexpected bytes after a filter value")
    }

    @Test("composite filters nested deeper than maxFilterDepth are refused instead of exhausting the stack")
    func tooDeep() throws {
        var filter = Filter.field(FieldFilter(FieldPath(segments: ["a"]), .equal, .null))
        for _ in 0...QueryCodec.maxFilterDepth { filter = .and([filter]) }
        let query = Query(
            path: ResourcePath(segments: ["c"]), collectionGroup: nil, filters: [filter], explicitOrderBy: [], limit: nil,
            limitType: .first, startAt: nil, endAt: nil)
        expectDataLoss(QueryCodec.encode(query), mentioning: "nested deeper")
    }
}
