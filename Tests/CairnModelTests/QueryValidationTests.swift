import Testing
@testable import CairnModel

@Suite("Query validation")
struct QueryValidationTests: QueryFixtures {
    /// One invalid query: how to build it and a phrase its error message must contain.
    struct Invalid: Sendable, CustomTestStringConvertible {
        let rule: String
        let phrase: String
        let build: @Sendable (Query) throws -> Query

        var testDescription: String { rule }
    }

    /// Fixture access from the static table (the protocol's helpers are instance members).
    struct Make: QueryFixtures {}
    static let make = Make()

    static func values(_ count: Int) -> Value { .array((0..<count).map { .integer(Int64($0)) }) }

    static let invalidFilters: [Invalid] = [
        Invalid(rule: "a second not-in", phrase: "You cannot use more than one 'notIn' filter.") {
            try $0.filtered(by: make.filter("a", .notIn, values(1))).filtered(by: make.filter("b", .notIn, values(1)))
        },
        Invalid(rule: "a second !=", phrase: "You cannot use more than one 'notEqual' filter.") {
            try $0.filtered(by: make.filter("a", .notEqual, .integer(1))).filtered(by: make.filter("b", .notEqual, .integer(1)))
        },
        Invalid(rule: "not-in after !=", phrase: "You cannot use 'notIn' filters with 'notEqual' filters.") {
            try $0.filtered(by: make.filter("a", .notEqual, .integer(1))).filtered(by: make.filter("a", .notIn, values(1)))
        },
        Invalid(rule: "!= after not-in", phrase: "You cannot use 'notEqual' filters with 'notIn' filters.") {
            try $0.filtered(by: make.filter("a", .notIn, values(1))).filtered(by: make.filter("b", .notEqual, .integer(1)))
        },
        Invalid(rule: "in after not-in", phrase: "You cannot use 'in' filters with 'notIn' filters.") {
            try $0.filtered(by: make.filter("a", .notIn, values(1))).filtered(by: make.filter("b", .in, values(1)))
        },
        Invalid(rule: "not-in after array-contains-any", phrase: "You cannot use 'notIn' filters with 'arrayContainsAny' filters.") {
            try $0.filtered(by: make.filter("a", .arrayContainsAny, values(1))).filtered(by: make.filter("b", .notIn, values(1)))
        },
        Invalid(rule: "conflicts inside one composite", phrase: "You cannot use more than one 'notIn' filter.") {
            try $0.filtered(by: .or([make.filter("a", .notIn, values(1)), make.filter("b", .notIn, values(1))]))
        },
        Invalid(rule: "an empty in array", phrase: "A non-empty array is required for 'in' filters.") {
            try $0.filtered(by: make.filter("a", .in, .array([])))
        },
        Invalid(rule: "a not-in operand that is not an array", phrase: "A non-empty array is required for 'notIn' filters.") {
            try $0.filtered(by: make.filter("a", .notIn, .integer(1)))
        },
        Invalid(rule: "an empty array-contains-any array", phrase: "A non-empty array is required for 'arrayContainsAny'") {
            try $0.filtered(by: make.filter("a", .arrayContainsAny, .array([])))
        },
        Invalid(rule: "31 values for in", phrase: "'in' filters support at most 30 values in the array, but 31 were given") {
            try $0.filtered(by: make.filter("a", .in, values(31)))
        },
        Invalid(rule: "31 values for array-contains-any", phrase: "'arrayContainsAny' filters support at most 30 values") {
            try $0.filtered(by: make.filter("a", .arrayContainsAny, values(31)))
        },
        Invalid(rule: "11 values for not-in", phrase: "'notIn' filters support at most 10 values in the array, but 11") {
            try $0.filtered(by: make.filter("a", .notIn, values(11)))
        },
        Invalid(rule: "two array-contains", phrase: "You cannot use more than one 'arrayContains' filter in the same disjunction") {
            try $0.filtered(by: make.filter("a", .arrayContains, .integer(1))).filtered(by: make.filter("b", .arrayContains, .integer(1)))
        },
        Invalid(rule: "array-contains-any with array-contains", phrase: "You cannot use 'arrayContainsAny' filters with 'arrayContains' filters") {
            try $0.filtered(by: make.filter("a", .arrayContains, .integer(1))).filtered(by: make.filter("b", .arrayContainsAny, values(2)))
        },
        Invalid(rule: "two array filters in one OR branch", phrase: "in the same disjunction") {
            try $0.filtered(by: make.filter("a", .arrayContains, .integer(1)))
                .filtered(by: .or([make.filter("b", .arrayContains, .integer(1)), make.filter("c", .equal, .integer(1))]))
        },
        Invalid(rule: "one array filter twice through different composites", phrase: "more than one 'arrayContains' filter") {
            try $0.filtered(by: make.filter("a", .arrayContains, .integer(1)))
                .filtered(by: .or([make.filter("a", .arrayContains, .integer(1)), make.filter("c", .equal, .integer(1))]))
        },
        Invalid(rule: "two array-contains-any in one branch", phrase: "more than one 'arrayContainsAny' filter in the same disjunction") {
            try $0.filtered(by: .and([make.filter("a", .arrayContainsAny, values(1)), make.filter("b", .arrayContainsAny, values(2))]))
        },
        Invalid(rule: "not-in with an OR", phrase: "You cannot use 'notIn' filters with 'or' filters") {
            try $0.filtered(by: make.filter("a", .notIn, values(2)))
                .filtered(by: .or([make.filter("b", .equal, .integer(1)), make.filter("c", .equal, .integer(1))]))
        },
        Invalid(rule: "< null", phrase: "Invalid Query. Null supports only equality comparisons") {
            try $0.filtered(by: make.filter("a", .lessThan, .null))
        },
        Invalid(rule: ">= NaN", phrase: "Invalid Query. NaN supports only equality comparisons") {
            try $0.filtered(by: make.filter("a", .greaterThanOrEqual, .double(.nan)))
        },
        Invalid(rule: "array-contains on __name__", phrase: "You can't perform 'arrayContains' queries on document ID") {
            try $0.filtered(by: make.filter("__name__", .arrayContains, make.ref("c/a")))
        },
        Invalid(rule: "a number for __name__", phrase: "you must provide a valid string or DocumentReference, but it was of type: number") {
            try $0.filtered(by: make.filter("__name__", .equal, .integer(1)))
        },
        Invalid(rule: "an unresolved document ID string for __name__", phrase: "resolve the document ID 'a' with Query.documentIDFilterValue") {
            try $0.filtered(by: make.filter("__name__", .equal, .string("a")))
        },
        Invalid(rule: "a non-reference inside __name__ in", phrase: "but it was of type: boolean") {
            try $0.filtered(by: make.filter("__name__", .in, .array([make.ref("c/a"), .boolean(true)])))
        },
        Invalid(rule: "an empty __name__ not-in", phrase: "A non-empty array is required for 'notIn' filters.") {
            try $0.filtered(by: make.filter("__name__", .notIn, .array([])))
        },
    ]

    @Test("filters the SDKs or the backend reject throw invalidArgument", arguments: invalidFilters)
    func invalidFilter(_ invalid: Invalid) {
        expectInvalid(invalid.phrase) { _ = try invalid.build(collection("c")) }
    }

    @Test("valid combinations pass: several inequality fields, in with in, one array filter per OR branch, repeats")
    func validCombinations() throws {
        let q = collection("c")
        _ = try q.filtered(by: filter("a", .lessThan, .integer(1))).filtered(by: filter("b", .greaterThan, .integer(1)))
            .filtered(by: filter("c", .notEqual, .integer(1)))
        _ = try q.filtered(by: filter("a", .in, Self.values(30))).filtered(by: filter("b", .arrayContainsAny, Self.values(30)))
        _ = try q.filtered(by: filter("a", .notIn, Self.values(10))).filtered(by: filter("b", .greaterThan, .integer(0)))
        _ = try q.filtered(by: .or([filter("a", .arrayContains, .integer(1)), filter("b", .arrayContains, .integer(1))]))
        _ = try q.filtered(by: filter("a", .arrayContains, .integer(1))).filtered(by: filter("a", .arrayContains, .integer(1)))
        let ac = filter("a", .arrayContains, .integer(1))
        let x = filter("x", .equal, .integer(1))
        _ = try q.filtered(by: .or([.and([ac, ac]), x]))
        _ = try q.filtered(by: .and([.or([x, ac]), .or([ac, x])]))  // identical sub-filters count once, in any order
        _ = try q.filtered(by: filter("a", .equal, .null)).filtered(by: filter("b", .notEqual, .double(.nan)))
        _ = try q.filtered(by: filter("a", .arrayContains, .null)).filtered(by: filter("b", .in, .array([.null])))
        _ = try q.filtered(by: filter("__name__", .in, .array([ref("c/a")]))).filtered(by: filter("__name__", .greaterThan, ref("c/0")))
    }

    @Test("an empty composite leaves the query unchanged; a single-child composite is stored as its child")
    func emptyAndSingleComposites() throws {
        let q = collection("c")
        #expect(try q.filtered(by: .and([.or([])])) == q)
        let single = try q.filtered(by: .or([filter("a", .equal, .integer(1))]))
        #expect(single.filters == [filter("a", .equal, .integer(1))])
    }

    @Test("the limit must be positive and fit in 32 bits")
    func limits() throws {
        expectInvalid("Invalid Query. Query limit (0) is invalid. Limit must be positive.") { _ = try collection("c").limited(to: 0) }
        expectInvalid("Query limit (-1) is invalid") { _ = try collection("c").limitedToLast(-1) }
        expectInvalid("Limit must be at most 2147483647") { _ = try collection("c").limited(to: Int(Int32.max) + 1) }
        #expect(try collection("c").limited(to: Int(Int32.max)).limit == Int(Int32.max))
    }

    @Test("limit(toLast:) needs an explicit order by, checked when the query runs")
    func limitToLastNeedsOrderBy() throws {
        let last = try collection("c").limitedToLast(2)
        expectInvalid("limit(toLast:) queries require specifying at least one order(by:) clause") { try last.validateForExecution() }
        try last.ordered(by: asc("a")).validateForExecution()
        try collection("c").limited(to: 2).validateForExecution()
    }

    @Test("order bys come before cursors, never repeat a field, and nothing follows __name__")
    func orderByRules() throws {
        let q = try collection("c").ordered(by: asc("a"))
        expectInvalid("You must not specify a starting point before specifying the order by.") {
            _ = try q.starting(at: [.integer(1)]).ordered(by: asc("b"))
        }
        expectInvalid("You must not specify an ending point before specifying the order by.") {
            _ = try q.ending(before: [.integer(1)]).ordered(by: asc("b"))
        }
        expectInvalid("already ordered by 'a'") { _ = try q.ordered(by: desc("a")) }
        expectInvalid("the document ID must be the last order by") {
            _ = try q.ordered(by: asc("__name__")).ordered(by: asc("b"))
        }
    }

    @Test("a cursor has at most one value per explicit order by, and a reference for __name__")
    func cursorRules() throws {
        let q = try collection("c").ordered(by: asc("a")).ordered(by: asc("__name__"))
        expectInvalid("using more values than were specified in the order by (3 values, 2 order bys)") {
            _ = try q.starting(at: [.integer(1), ref("c/a"), .integer(2)])
        }
        expectInvalid("Expected a string for the document ID, but it was of type: number") {
            _ = try q.ending(at: [.integer(1), .integer(2)])
        }
        expectInvalid("with Query.documentIDCursorValue") { _ = try q.starting(after: [.integer(1), .string("a")]) }
        expectInvalid("more values than were specified") { _ = try collection("c").starting(at: [.integer(1)]) }
        #expect(try q.starting(after: [.integer(1), ref("c/a")]).startAt == Bound(position: [.integer(1), ref("c/a")], inclusive: false))
    }

    @Test("document IDs resolve to references: a plain ID for a collection, an even path for a collection group")
    func documentIDs() throws {
        let rooms = collection("rooms")
        #expect(try rooms.documentIDFilterValue("eros", database: database) == ref("rooms/eros"))
        #expect(try rooms.documentIDCursorValue("eros", database: database) == ref("rooms/eros"))
        expectInvalid("you must provide a valid document ID, but it was an empty string") {
            _ = try rooms.documentIDFilterValue("", database: database)
        }
        expectInvalid("but 'a/b/c' contains a '/' character") { _ = try rooms.documentIDFilterValue("a/b/c", database: database) }
        expectInvalid("but 'a/b/c' contains a slash") { _ = try rooms.documentIDCursorValue("a/b/c", database: database) }
        let group = Query(path: .root, collectionGroup: "messages")
        #expect(try group.documentIDFilterValue("rooms/eros/messages/m1", database: database) == ref("rooms/eros/messages/m1"))
        expectInvalid("but 'rooms/eros/messages' is not because it has an odd number of segments (3)") {
            _ = try group.documentIDFilterValue("rooms/eros/messages", database: database)
        }
        expectInvalid("you must pass a value that results in a valid document path") {
            _ = try group.documentIDCursorValue("rooms", database: database)
        }
        expectInvalid("must not contain //") { _ = try group.documentIDFilterValue("rooms//m", database: database) }
    }

    @Test("a bound at a document takes every normalized order-by value and the key, and refuses unusable documents")
    func boundAtDocument() throws {
        let q = try collection("c").filtered(by: filter("b", .greaterThan, .integer(0))).ordered(by: desc("a"))
        let document = doc("c/d", ["a": .string("x"), "b": .integer(2)])
        let bound = try q.bound(at: document, inclusive: false, database: database)
        #expect(bound == Bound(position: [.string("x"), .integer(2), ref("c/d")], inclusive: false))
        expectInvalid("the field 'b' (used as the order by) does not exist") {
            _ = try q.bound(at: doc("c/e", ["a": .integer(1)]), inclusive: true, database: database)
        }
        let pending = Value.serverTimestamp(localWriteTime: Timestamp(seconds: 1, nanoseconds: 0), previous: nil)
        expectInvalid("the field 'a' is an uncommitted server timestamp") {
            _ = try q.bound(at: doc("c/e", ["a": pending, "b": .integer(1)]), inclusive: true, database: database)
        }
        let missing = Document(key: key("c/z"), state: .noDocument, version: Timestamp(seconds: 1, nanoseconds: 0))
        expectInvalid("using a document that doesn't exist") { _ = try q.bound(at: missing, inclusive: true, database: database) }
    }

    @Test("a document query takes no filters, order bys or cursors")
    func documentQueries() {
        let single = collection("c/d")
        #expect(single.isDocumentQuery)
        expectInvalid("c/d is a document, and a document query cannot have filters") {
            _ = try single.filtered(by: filter("a", .equal, .integer(1)))
        }
        expectInvalid("cannot have order bys") { _ = try single.ordered(by: asc("a")) }
        expectInvalid("cannot have cursors") { _ = try single.starting(at: []) }
    }
}
