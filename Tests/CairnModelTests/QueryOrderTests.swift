import Testing
@testable import CairnModel

@Suite("Query order")
struct QueryOrderTests: QueryFixtures {
    func normalized(_ query: Query) -> [String] { query.normalizedOrderBy.map(\.canonicalID) }

    @Test("with no order by and no inequality, a query is ordered by __name__ ascending")
    func keyOnly() {
        #expect(normalized(collection("c")) == ["__name__asc"])
        #expect(normalized(Query(path: .root, collectionGroup: "g")) == ["__name__asc"])
    }

    @Test("explicit order bys come first, then __name__ in the direction of the last explicit one")
    func explicitThenKey() throws {
        let q = try collection("c").ordered(by: asc("a")).ordered(by: desc("b"))
        #expect(normalized(q) == ["aasc", "bdesc", "__name__desc"])
        #expect(normalized(try collection("c").ordered(by: desc("a")).ordered(by: asc("b"))) == ["adesc", "basc", "__name__asc"])
    }

    @Test("inequality fields not ordered explicitly follow, in field-path order, in the last explicit direction")
    func implicitInequalityFields() throws {
        let q = try collection("c")
            .filtered(by: filter("z", .greaterThan, .integer(1)))
            .filtered(by: filter("b.c", .lessThanOrEqual, .integer(1)))
            .filtered(by: filter("b", .notIn, .array([.integer(1)])))
            .filtered(by: filter("e", .equal, .integer(1)))
            .filtered(by: filter("arr", .arrayContains, .integer(1)))
            .ordered(by: desc("y"))
        #expect(normalized(q) == ["ydesc", "bdesc", "b.cdesc", "zdesc", "__name__desc"])
        #expect(q.inequalityFields == [field("b"), field("b.c"), field("z")])
    }

    @Test("an inequality field is ordered once, however many filters it has, and not again if explicit")
    func noDuplicates() throws {
        let q = try collection("c")
            .filtered(by: filter("a", .greaterThan, .integer(1)))
            .filtered(by: filter("a", .lessThan, .integer(9)))
            .filtered(by: filter("b", .lessThan, .integer(9)))
            .ordered(by: desc("b"))
        #expect(normalized(q) == ["bdesc", "adesc", "__name__desc"])
    }

    @Test("inequalities inside OR and AND composites count too")
    func compositeInequalities() throws {
        let q = try collection("c").filtered(by: .or([
            filter("b", .lessThan, .integer(1)), .and([filter("a", .greaterThan, .integer(1)), filter("d", .equal, .integer(1))]),
        ]))
        #expect(normalized(q) == ["aasc", "basc", "__name__asc"])
    }

    @Test("an explicit __name__ order by is kept where it is and not repeated; an inequality on __name__ adds nothing")
    func explicitKey() throws {
        let q = try collection("c").ordered(by: desc("__name__"))
        #expect(normalized(q) == ["__name__desc"])
        let keyRange = try collection("c").filtered(by: filter("__name__", .greaterThan, ref("c/a")))
        #expect(normalized(keyRange) == ["__name__asc"])
    }

    @Test("documents compare field by field in the normalized order, then by key")
    func compareDocuments() throws {
        let q = try collection("c").ordered(by: desc("a"))
        let high = doc("c/x", ["a": .integer(2)])
        let lowB = doc("c/b", ["a": .double(1.0)])
        let lowA = doc("c/a", ["a": .integer(1)])
        #expect(q.compareDocuments(high, lowA) == -1)
        #expect(q.compareDocuments(lowA, lowB) == 1)  // tie on a (1 == 1.0), then __name__ descending
        #expect(q.compareDocuments(lowB, lowB) == 0)
        let mixed = [doc("c/1", ["a": .string("s")]), doc("c/2", ["a": .null]), doc("c/3", ["a": .double(.nan)]), doc("c/4", ["a": .integer(-5)])]
        let ascending = try collection("c").ordered(by: asc("a"))
        #expect(mixed.sorted { ascending.compareDocuments($0, $1) < 0 }.map(\.key.documentID) == ["2", "3", "4", "1"])
    }

    @Test("a document missing an order-by field does not match the query")
    func missingOrderByField() throws {
        let q = try collection("c").filtered(by: .or([filter("a", .greaterThan, .integer(1)), filter("b", .equal, .integer(1))]))
        #expect(q.matches(doc("c/1", ["a": .integer(2)])))
        #expect(!q.matches(doc("c/2", ["b": .integer(1)])))  // matches the OR, but lacks the implicit order-by field a
        #expect(q.matches(doc("c/3", ["a": .integer(0), "b": .integer(1)])))
    }
}

@Suite("Query scope")
struct QueryScopeTests: QueryFixtures {
    @Test("a collection query matches existing direct children of its collection only")
    func collectionQuery() {
        let q = collection("rooms")
        #expect(q.matches(doc("rooms/a")))
        #expect(!q.matches(doc("rooms/a/messages/m")))
        #expect(!q.matches(doc("roomsX/a")))
        #expect(!q.matches(doc("other/rooms")))
        #expect(!q.matches(Document(key: key("rooms/b"), state: .noDocument, version: Timestamp(seconds: 1, nanoseconds: 0))))
        #expect(collection("rooms/a/messages").matches(doc("rooms/a/messages/m")))
    }

    @Test("a collection group query matches documents of that collection id at any depth under its path")
    func collectionGroupQuery() {
        let q = Query(path: .root, collectionGroup: "messages")
        #expect(q.matches(doc("messages/m")))
        #expect(q.matches(doc("rooms/a/messages/m")))
        #expect(!q.matches(doc("rooms/a")))
        #expect(!q.matches(doc("messages/m/other/o")))
        let scoped = Query(path: ResourcePath(segments: ["rooms", "a"]), collectionGroup: "messages")
        #expect(scoped.matches(doc("rooms/a/messages/m")))
        #expect(!scoped.matches(doc("rooms/b/messages/m")))
        #expect(!Query(path: .root, collectionGroup: "e\u{301}").matches(doc("\u{e9}/x")))  // IDs compare by bytes
    }

    @Test("a document query matches exactly its document")
    func documentQuery() {
        let q = collection("rooms/a")
        #expect(q.matches(doc("rooms/a")))
        #expect(!q.matches(doc("rooms/a/messages/m")))
        #expect(!q.matches(doc("rooms/b")))
    }

    @Test("a collection group query runs per collection as a collection query with the same constraints")
    func asCollectionQuery() throws {
        let group = try Query(path: .root, collectionGroup: "messages").filtered(by: filter("a", .equal, .integer(1))).limited(to: 3)
        let one = group.asCollectionQuery(at: ResourcePath(segments: ["rooms", "a", "messages"]))
        #expect(one.collectionGroup == nil && one.filters == group.filters && one.limit == 3)
        #expect(one.canonicalID == "rooms/a/messages|f:a==1|ob:__name__asc|l:3|lt:f")
    }

    @Test("matchesAllDocuments only without filters, limits, cursors or an order by other than __name__")
    func matchesAllDocuments() throws {
        #expect(collection("c").matchesAllDocuments)
        #expect(try collection("c").ordered(by: desc("__name__")).matchesAllDocuments)
        #expect(try !collection("c").ordered(by: asc("a")).matchesAllDocuments)
        #expect(try !collection("c").limited(to: 1).matchesAllDocuments)
        #expect(try !collection("c").filtered(by: filter("a", .equal, .null)).matchesAllDocuments)
    }
}
