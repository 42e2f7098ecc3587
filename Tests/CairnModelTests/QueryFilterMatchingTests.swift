import Testing
@testable import CairnModel

@Suite("Field filter matching")
struct QueryFilterMatchingTests: QueryFixtures {
    /// Whether a document whose field `x` holds `value` (or lacks `x` for `nil`) matches `x op operand`.
    func matches(_ value: Value?, _ op: FilterOperator, _ operand: Value) -> Bool {
        let fields: [String: Value] = value.map { ["x": $0] } ?? ["other": .integer(1)]
        return FieldFilter(field("x"), op, operand).matches(doc("c/d", fields))
    }

    @Test("a missing field never matches, whatever the operator")
    func missingField() {
        let operands: [FilterOperator: Value] = [
            .notEqual: .integer(1), .notIn: .array([.integer(1)]), .in: .array([.null]),
            .arrayContainsAny: .array([.null]), .lessThan: .integer(1), .equal: .null,
        ]
        for (op, operand) in operands {
            #expect(!matches(nil, op, operand), "\(op)")
        }
    }

    @Test("<, <=, ==, >=, > only match values of the operand's type order")
    func rangeIsTypeStrict() {
        #expect(matches(.integer(5), .greaterThan, .integer(1)))
        #expect(!matches(.string("5"), .greaterThan, .integer(1)))  // strings sort after numbers: still no match
        #expect(!matches(.null, .lessThan, .integer(1)))  // null sorts first: still no match
        #expect(!matches(.boolean(true), .lessThanOrEqual, .integer(0)))
        #expect(matches(.string("b"), .greaterThanOrEqual, .string("b")))
        #expect(!matches(.array([.integer(1)]), .equal, .integer(1)))
    }

    @Test("integers and doubles compare numerically: == 1 matches 1.0, and -0.0 == 0")
    func numbersCompareAcrossRepresentations() {
        #expect(matches(.double(1.0), .equal, .integer(1)))
        #expect(matches(.integer(1), .equal, .double(1.0)))
        #expect(matches(.double(-0.0), .equal, .integer(0)))
        #expect(matches(.double(1.5), .greaterThan, .integer(1)))
        #expect(matches(.integer(2), .lessThan, .double(2.5)))
        #expect(!matches(.double(1.0), .notEqual, .integer(1)))
    }

    @Test("== null matches only null, == NaN matches only NaN")
    func nullAndNaNEquality() {
        #expect(matches(.null, .equal, .null))
        #expect(!matches(.integer(0), .equal, .null))
        #expect(!matches(.boolean(false), .equal, .null))
        #expect(matches(.double(.nan), .equal, .double(.nan)))
        #expect(!matches(.integer(0), .equal, .double(.nan)))
        #expect(!matches(.double(.infinity), .equal, .double(.nan)))
        #expect(!matches(.null, .equal, .double(.nan)))
    }

    @Test("NaN sorts below every other number, so < 1 matches NaN (the SDKs' client rule)")
    func nanInRanges() {
        #expect(matches(.double(.nan), .lessThan, .integer(1)))
        #expect(matches(.double(.nan), .lessThan, .double(-.infinity)))
        #expect(!matches(.double(.nan), .greaterThan, .integer(1)))
    }

    @Test("!= matches any type but null, and not values that compare equal")
    func notEqual() {
        #expect(matches(.string("1"), .notEqual, .integer(1)))
        #expect(matches(.boolean(true), .notEqual, .integer(1)))
        #expect(matches(.integer(2), .notEqual, .integer(1)))
        #expect(!matches(.integer(1), .notEqual, .integer(1)))
        #expect(!matches(.null, .notEqual, .integer(1)))
        #expect(!matches(.null, .notEqual, .null))
        #expect(matches(.integer(0), .notEqual, .null))
    }

    @Test("!= NaN excludes NaN and null and keeps every other value")
    func notEqualNaN() {
        #expect(!matches(.double(.nan), .notEqual, .double(.nan)))
        #expect(!matches(.null, .notEqual, .double(.nan)))
        #expect(matches(.integer(1), .notEqual, .double(.nan)))
        #expect(matches(.string("NaN"), .notEqual, .double(.nan)))
    }

    @Test("membership uses valuesEqual, which is type-strict: 1 is not in [1.0], NaN is in [NaN]")
    func membershipIsTypeStrict() {
        #expect(!matches(.double(1.0), .in, .array([.integer(1)])))
        #expect(matches(.integer(1), .in, .array([.string("a"), .integer(1)])))
        #expect(matches(.double(.nan), .in, .array([.double(.nan)])))
        #expect(matches(.null, .in, .array([.null])))
        #expect(!matches(.array([.double(1.0)]), .arrayContains, .integer(1)))
        #expect(matches(.array([.double(1.0)]), .arrayContains, .double(1.0)))
        #expect(!matches(.array([.integer(1)]), .arrayContainsAny, .array([.double(1.0)])))
        #expect(matches(.double(1.0), .notIn, .array([.integer(1)])))
        let map = Value.map(ObjectValue(["a": .integer(1)]))
        #expect(matches(map, .in, .array([map])))
    }

    @Test("not-in never matches null, and matches nothing when its list contains null")
    func notIn() {
        #expect(matches(.integer(3), .notIn, .array([.integer(1), .integer(2)])))
        #expect(!matches(.integer(2), .notIn, .array([.integer(1), .integer(2)])))
        #expect(!matches(.null, .notIn, .array([.integer(1)])))
        #expect(!matches(.integer(3), .notIn, .array([.integer(1), .null])))
        #expect(!matches(.double(.nan), .notIn, .array([.double(.nan)])))
        #expect(matches(.double(.nan), .notIn, .array([.integer(1)])))
    }

    @Test("array-contains and array-contains-any only match array fields")
    func arrayOperators() {
        #expect(matches(.array([.integer(1), .string("a")]), .arrayContains, .string("a")))
        #expect(!matches(.string("a"), .arrayContains, .string("a")))
        #expect(matches(.array([.null]), .arrayContains, .null))
        #expect(matches(.array([.array([.integer(1)])]), .arrayContains, .array([.integer(1)])))
        #expect(matches(.array([.integer(1), .integer(2)]), .arrayContainsAny, .array([.integer(5), .integer(2)])))
        #expect(!matches(.array([]), .arrayContainsAny, .array([.integer(5)])))
        #expect(!matches(.integer(5), .arrayContainsAny, .array([.integer(5)])))
        #expect(!matches(.array([.integer(5)]), .in, .array([.integer(5)])))
    }

    @Test("nested field paths look inside maps; a non-map on the way means missing")
    func nestedFields() {
        let document = doc("c/d", ["m": .map(ObjectValue(["x": .integer(1)])), "s": .string("v")])
        #expect(FieldFilter(field("m.x"), .equal, .integer(1)).matches(document))
        #expect(!FieldFilter(field("m.y"), .notEqual, .integer(1)).matches(document))
        #expect(!FieldFilter(field("s.x"), .notEqual, .integer(1)).matches(document))
    }

    @Test("__name__ filters compare the document's key with the reference's key")
    func documentKeyFilters() {
        let document = doc("c/b")
        let other = DatabaseID(projectID: "elsewhere")
        #expect(FieldFilter(.documentKey, .equal, ref("c/b")).matches(document))
        #expect(FieldFilter(.documentKey, .equal, .reference(other, key("c/b"))).matches(document))
        #expect(FieldFilter(.documentKey, .greaterThan, ref("c/a")).matches(document))
        #expect(FieldFilter(.documentKey, .lessThan, ref("c/a/sub/x")).matches(document) == false)
        #expect(FieldFilter(.documentKey, .lessThan, ref("d/a")).matches(document))
        #expect(FieldFilter(.documentKey, .notEqual, ref("c/b")).matches(document) == false)
        #expect(FieldFilter(.documentKey, .in, .array([ref("c/a"), ref("c/b")])).matches(document))
        #expect(FieldFilter(.documentKey, .notIn, .array([ref("c/a"), ref("c/b")])).matches(document) == false)
        #expect(FieldFilter(.documentKey, .notIn, .array([ref("c/a")])).matches(document))
        #expect(FieldFilter(.documentKey, .equal, .string("c/b")).matches(document) == false)
    }

    @Test("AND needs every sub-filter, OR any; an empty AND matches everything and an empty OR nothing")
    func composites() {
        let document = doc("c/d", ["a": .integer(1), "b": .integer(2)])
        let aIs1 = filter("a", .equal, .integer(1))
        let bIs3 = filter("b", .equal, .integer(3))
        #expect(!Filter.and([aIs1, bIs3]).matches(document))
        #expect(Filter.or([aIs1, bIs3]).matches(document))
        #expect(Filter.or([bIs3, .and([aIs1, filter("b", .greaterThan, .integer(1))])]).matches(document))
        #expect(Filter.and([]).matches(document))
        #expect(!Filter.or([]).matches(document))
    }

    @Test("flattening lists every field filter depth first; simplifying drops empty and single-child composites")
    func flatteningAndSimplifying() {
        let a = filter("a", .equal, .integer(1))
        let b = filter("b", .equal, .integer(2))
        let c = filter("c", .equal, .integer(3))
        let tree = Filter.or([a, .and([b, .or([])]), .and([.and([c])])])
        #expect(tree.flattenedFilters.map(\.field) == [field("a"), field("b"), field("c")])
        #expect(tree.simplified == .or([a, b, c]))
        #expect(Filter.and([.or([a])]).simplified == a)
        #expect(Filter.and([.or([]), .and([])]).simplified.isEmpty)
        #expect(tree.containsDisjunction && !Filter.and([a, b]).containsDisjunction)
    }

    @Test("canonical ids: field, operator and value without separators; a flat AND lists its filters")
    func canonicalIDs() {
        #expect(filter("a.b", .lessThanOrEqual, .integer(3)).canonicalID == "a.b<=3")
        #expect(filter("tags", .arrayContains, .string("x")).canonicalID == "tagsarray-contains\"x\"")
        #expect(filter("a", .notIn, .array([.integer(1), .null])).canonicalID == "anot-in[1,null]")
        let a = filter("a", .equal, .integer(1))
        let b = filter("b", .greaterThan, .double(2.5))
        #expect(Filter.and([a, b]).canonicalID == "a==1,b>2.5")
        #expect(Filter.or([a, b]).canonicalID == "or(a==1,b>2.5)")
        #expect(Filter.and([a, .or([a, b])]).canonicalID == "and(a==1,or(a==1,b>2.5))")
    }
}
