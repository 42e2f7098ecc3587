import Testing
@testable import CairnModel

@Suite("Index scan ranges")
struct IndexScanTests: IndexFixtures {
    /// Documents in `c` whose field `a` holds one value each, named after the value.
    var mixed: [Document] {
        let values: [String: Value] = [
            "null": .null, "false": .boolean(false), "nan": .double(.nan), "minus1": .integer(-1), "int1": .integer(1),
            "double1": .double(1.0), "int2": .integer(2), "int5": .integer(5), "ts": .timestamp(Timestamp(seconds: 3, nanoseconds: 0)),
            "empty": .string(""), "s1": .string("1"), "sm": .string("m"), "sz": .string("z"), "bytes": .bytes([1]),
            "ref": ref("c/x"), "array": .array([.integer(1)]), "map": .map(ObjectValue(["a": .integer(1)])),
        ]
        return values.map { doc("c/\($0.key)", ["a": $0.value]) } + [doc("c/missing", ["b": .integer(1)])]
    }

    /// The ids of the documents whose entries lie in the query's ranges on `index`.
    func found(_ query: Query, _ index: FieldIndex, _ documents: [Document]? = nil) -> Set<String> {
        let ranges = IndexPlanner.scanRanges(for: query, using: index)!
        return Set(keysInRanges(ranges, of: index, documents ?? mixed).map(\.documentID))
    }

    @Test("== holds exactly the values that compare equal, whatever their number type")
    func equality() {
        #expect(found(query([filter("a", .equal, .integer(1))]), index("c", "a")) == ["int1", "double1"])
        #expect(found(query([filter("a", .equal, .null)]), index("c", "a")) == ["null"])
        #expect(found(query([filter("a", .equal, .double(.nan))]), index("c", "a desc")) == ["nan"])
        #expect(IndexPlanner.scanRanges(for: query([filter("a", .equal, .integer(1))]), using: index("c", "a"))!.count == 1)
    }

    @Test("in gives one range per distinct value, a superset that the re-check makes type-strict")
    func inValues() throws {
        let q = query([filter("a", .in, .array([.integer(1), .integer(5), .string("z"), .integer(1)]))])
        let ranges = try #require(IndexPlanner.scanRanges(for: q, using: index("c", "a")))
        #expect(ranges.count == 3)
        #expect(found(q, index("c", "a")) == ["int1", "double1", "int5", "sz"])
        #expect(indexedMatches(q, index("c", "a"), mixed) == scannedMatches(q, mixed))
        #expect(scannedMatches(q, mixed).map(\.documentID).sorted() == ["int1", "int5", "sz"])
    }

    @Test("range filters stay within the type of their value, NaN counting as the lowest number")
    func ranges() {
        #expect(found(query([filter("a", .greaterThan, .integer(1))]), index("c", "a")) == ["int2", "int5"])
        #expect(found(query([filter("a", .lessThanOrEqual, .integer(1))]), index("c", "a")) == ["nan", "minus1", "int1", "double1"])
        #expect(found(query([filter("a", .lessThan, .string("m"))]), index("c", "a")) == ["empty", "s1"])
        let strings = query([filter("a", .greaterThanOrEqual, .string("m"))], orderedBy: [desc("a")])
        #expect(found(strings, index("c", "a desc")) == ["sm", "sz"])
        let between = query([filter("a", .greaterThan, .integer(-1)), filter("a", .lessThan, .integer(5))], orderedBy: [desc("a")])
        #expect(found(between, index("c", "a desc")) == ["int1", "double1", "int2"])
    }

    @Test("!= skips null and the value; not-in skips null and the values without numbers")
    func exclusions() {
        let everything = Set(mixed.map(\.key.documentID)).subtracting(["missing"])
        #expect(found(query([filter("a", .notEqual, .integer(1))]), index("c", "a")) == everything.subtracting(["null", "int1", "double1"]))
        let notIn = query([filter("a", .notIn, .array([.string("z"), .integer(2), .array([.integer(1)])]))], orderedBy: [desc("a")])
        #expect(found(notIn, index("c", "a desc")) == everything.subtracting(["null", "sz"]))
        #expect(indexedMatches(notIn, index("c", "a desc"), mixed) == scannedMatches(notIn, mixed))
        let withNull = query([filter("a", .notIn, .array([.string("z"), .null]))])
        #expect(IndexPlanner.scanRanges(for: withNull, using: index("c", "a")) == [])
    }

    @Test("filters that contradict each other leave no range")
    func contradictions() {
        for filters in [
            [filter("a", .greaterThan, .integer(5)), filter("a", .lessThan, .integer(3))],
            [filter("a", .greaterThan, .integer(5)), filter("a", .lessThan, .string("x"))],
            [filter("a", .equal, .integer(1)), filter("a", .greaterThan, .integer(1))],
            [filter("a", .in, .array([.integer(1), .integer(2)])), filter("a", .equal, .string("1"))],
        ] {
            #expect(IndexPlanner.scanRanges(for: query(filters), using: index("c", "a")) == [], "\(filters)")
        }
    }

    @Test("equality segments fix a prefix and the next segment's range narrows it, in either direction")
    func prefixThenRange() {
        var documents: [Document] = []
        for a in 0..<3 {
            for b in 0..<4 { documents.append(doc("c/\(a)\(b)", ["a": .integer(Int64(a)), "b": .integer(Int64(b))])) }
        }
        let filters = [filter("a", .in, .array([.integer(0), .integer(2)])), filter("b", .greaterThanOrEqual, .integer(2))]
        for (specs, order) in [(["a", "b"], asc("b")), (["a desc", "b desc"], desc("b")), (["a", "b desc"], desc("b"))] {
            let q = query(filters, orderedBy: [order])
            #expect(found(q, index("c", specs), documents) == ["02", "03", "22", "23"], "\(specs)")
        }
    }

    @Test("array-contains fixes the element column; array-contains-any reads one range per element")
    func arrayElements() {
        let documents = [
            doc("c/ab", ["tags": .array([.string("a"), .string("b")]), "n": .integer(1)]),
            doc("c/b", ["tags": .array([.string("b")]), "n": .integer(2)]), doc("c/c", ["tags": .array([.string("c")]), "n": .integer(3)]),
            doc("c/s", ["tags": .string("b"), "n": .integer(4)]), doc("c/one", ["tags": .array([.double(1.0)]), "n": .integer(5)]),
        ]
        let index = index("c", "tags contains")
        #expect(found(query([filter("tags", .arrayContains, .string("b"))]), index, documents) == ["ab", "b"])
        let ordered = query([filter("tags", .arrayContains, .string("b")), filter("n", .greaterThan, .integer(1))], orderedBy: [asc("n")])
        #expect(found(ordered, self.index("c", "tags contains", "n"), documents) == ["b"])
        let any = query([filter("tags", .arrayContainsAny, .array([.string("a"), .string("c"), .integer(1)]))])
        #expect(IndexPlanner.scanRanges(for: any, using: index)!.count == 3)
        #expect(found(any, index, documents) == ["ab", "c", "one"])
        #expect(indexedMatches(any, index, documents) == scannedMatches(any, documents))
    }

    @Test("cursors narrow the column of the first order by, across types")
    func cursors() throws {
        let ordered = query([], orderedBy: [asc("a")])
        #expect(found(try ordered.starting(after: [.integer(2)]), index("c", "a")) == ["int5", "ts", "empty", "s1", "sm", "sz", "bytes", "ref", "array", "map"])
        #expect(found(try ordered.ending(at: [.integer(1)]), index("c", "a")) == ["null", "false", "nan", "minus1", "int1", "double1"])
        let byKey = query([], orderedBy: [asc("a"), asc("__name__")])
        let afterDouble1 = try byKey.starting(after: [.integer(1), ref("c/double1")])
        #expect(found(afterDouble1, index("c", "a")).isSuperset(of: ["double1", "int1", "int2"]))
        #expect(scannedMatches(afterDouble1, mixed).contains(key("c/int1")))
        #expect(indexedMatches(afterDouble1, index("c", "a"), mixed) == scannedMatches(afterDouble1, mixed))
        let descending = query([], orderedBy: [desc("a"), desc("__name__")])
        let page = try descending.starting(at: [.string("m"), ref("c/sm")]).ending(before: [.string("")])
        #expect(found(page, index("c", "a desc")) == ["sm", "s1"])
        #expect(indexedMatches(page, index("c", "a desc"), mixed) == scannedMatches(page, mixed))
    }

    @Test("__name__ filters narrow a __name__ segment")
    func documentKeySegment() {
        let documents = (0..<6).map { doc("c/d\($0)", ["a": .integer(Int64($0 % 2))]) }
        let q = query([filter("a", .equal, .integer(0)), filter("__name__", .greaterThan, ref("c/d1"))])
        #expect(found(q, index("c", "a", "__name__"), documents) == ["d2", "d4"])
    }

    @Test("past the range limit a column is covered by one wider range, still a superset")
    func rangeLimit() throws {
        let values = Value.array((0..<30).map { .integer(Int64($0)) })
        let q = query([filter("a", .in, values), filter("b", .in, values), filter("c", .in, values)])
        let documents = (0..<200).map { (n: Int64) -> Document in
            let fields: [String: Value] = ["a": .integer(n % 31), "b": .integer(n % 29), "c": .integer(n % 33)]
            return doc("c/d\(n)", fields)
        }
        let index = index("c", "a", "b", "c")
        let ranges = try #require(IndexPlanner.scanRanges(for: q, using: index))
        #expect(ranges.count == 900)
        #expect(indexedMatches(q, index, documents) == scannedMatches(q, documents))
    }

    @Test("no ranges for an index that does not serve the query")
    func notServed() {
        #expect(IndexPlanner.scanRanges(for: query([filter("a", .equal, .integer(1))]), using: index("c", "b")) == nil)
        #expect(IndexPlanner.scanRanges(for: query([filter("a", .equal, .integer(1))]), using: index("d", "a")) == nil)
    }
}
