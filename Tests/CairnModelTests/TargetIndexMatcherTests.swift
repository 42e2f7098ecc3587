import Testing
@testable import CairnModel

@Suite("Target index matcher and planner")
struct TargetIndexMatcherTests: IndexFixtures {
    func served(_ query: Query, _ index: FieldIndex) -> Bool { try! TargetIndexMatcher(query).servedBy(index) }

    @Test("equality filters are served by their fields in any order, and by a prefix of them")
    func equalities() {
        let q = query([filter("a", .equal, .string("a")), filter("b", .equal, .string("b"))])
        for specs in [["a", "b desc"], ["b desc", "a"], ["a"], ["b desc"]] {
            #expect(served(q, index("c", specs)), "\(specs)")
        }
        #expect(!served(q, index("c", "a", "x")))
        #expect(!served(q, index("c", "x")))
        #expect(served(query([filter("a", .in, .array([.integer(1), .integer(2)]))]), index("c", "a desc")))
    }

    @Test("an inequality is served by its field in the direction of its order, then the later order bys")
    func inequality() {
        let q = query([filter("a", .greaterThanOrEqual, .string("a"))], orderedBy: [asc("a")])
        #expect(served(q, index("c", "a")))
        #expect(!served(q, index("c", "a desc")))
        let descending = query([filter("a", .greaterThanOrEqual, .string("a"))], orderedBy: [desc("a")])
        #expect(served(descending, index("c", "a desc")))
        let twoOrders = query([filter("a", .greaterThanOrEqual, .string("a"))], orderedBy: [asc("a"), asc("b")])
        #expect(served(twoOrders, index("c", "a", "b")))
        #expect(served(twoOrders, index("c", "a")))
        #expect(!served(twoOrders, index("c", "b")))
        #expect(!served(twoOrders, index("c", "b", "a")))
        #expect(!served(twoOrders, index("c", "a", "b desc")))
        #expect(served(query([filter("a", .notEqual, .integer(1))]), index("c", "a")))
        #expect(served(query([filter("a", .notIn, .array([.integer(1)]))]), index("c", "a")))
    }

    @Test("equality segments come first, then the inequality field, then the order bys, none skipped")
    func equalityThenInequality() {
        let q = query([filter("a", .equal, .integer(1)), filter("b", .lessThan, .integer(5))], orderedBy: [asc("b"), desc("c")])
        #expect(served(q, index("c", "a", "b", "c desc")))
        #expect(served(q, index("c", "a", "b")))
        #expect(served(q, index("c", "b", "c desc")))
        #expect(!served(q, index("c", "b", "a")))
        #expect(!served(q, index("c", "a", "c desc")))
        #expect(!served(q, index("c", "a", "b", "c")))
    }

    @Test("an inequality on a different field than the first order by needs an index in order-by order")
    func inequalityOnAnotherField() {
        let q = query([filter("a", .greaterThan, .integer(1))], orderedBy: [asc("b")])
        #expect(q.normalizedOrderBy.map(\.field) == [field("b"), field("a"), .documentKey])
        #expect(served(q, index("c", "b", "a")))
        #expect(served(q, index("c", "b")))
        #expect(!served(q, index("c", "a")))
        #expect(!served(q, index("c", "a", "b")))
    }

    @Test("array-contains and array-contains-any are served by a contains segment on their field")
    func arrayContains() {
        let q = query([filter("tags", .arrayContains, .string("a"))], orderedBy: [asc("b")])
        #expect(served(q, index("c", "tags contains", "b")))
        #expect(served(q, index("c", "tags contains")))
        #expect(served(q, index("c", "b")))
        #expect(!served(q, index("c", "tags")))
        #expect(!served(q, index("c", "other contains")))
        #expect(!served(query([filter("a", .equal, .integer(1))]), index("c", "a contains")))
        let any = query([filter("tags", .arrayContainsAny, .array([.string("a"), .string("b")]))])
        #expect(served(any, index("c", "tags contains")))
    }

    @Test("order bys on equality fields are skipped, and __name__ segments match the key order")
    func skippedOrders() {
        let q = query([filter("a", .equal, .integer(1))], orderedBy: [asc("a"), asc("b")])
        #expect(served(q, index("c", "a", "b")))
        #expect(served(query([], orderedBy: [desc("b")]), index("c", "b desc", "__name__ desc")))
        #expect(!served(query([], orderedBy: [desc("b")]), index("c", "b desc", "__name__")))
    }

    @Test("an inequality field with an equality filter too consumes no extra segment")
    func equalityAndInequalityOnOneField() {
        let q = query([filter("a", .equal, .integer(3)), filter("a", .greaterThan, .integer(2))])
        #expect(served(q, index("c", "a")))
        #expect(!served(q, index("c", "a", "b")))
    }

    @Test("several inequality fields are served in order-by order")
    func multipleInequalities() {
        let q = query([filter("a", .greaterThan, .integer(1)), filter("b", .lessThan, .integer(2))])
        #expect(served(q, index("c", "a", "b")))
        #expect(!served(q, index("c", "b", "a")))
    }

    @Test("only an index on the query's collection id serves it, for collection and collection group queries")
    func collectionID() {
        #expect(!served(collection("users/ada/c"), index("c", "a")), "the query does not need 'a'")
        #expect(served(query([], orderedBy: [asc("a")], on: collection("users/ada/c")), index("c", "a")))
        #expect(!served(query([], orderedBy: [asc("a")], on: collection("users/ada/c")), index("users", "a")))
        #expect(served(query([], orderedBy: [asc("a")], on: Query(path: .root, collectionGroup: "c")), index("c", "a")))
        #expect(!served(Query(path: ResourcePath(segments: ["c", "d"])), index("d", "a")))
    }

    @Test("a query with an OR filter must be split into terms first")
    func orNeedsTerms() {
        let q = query([.or([filter("a", .equal, .integer(1)), filter("b", .equal, .integer(2))])])
        expectInvalid("has an OR filter") { _ = try TargetIndexMatcher(q) }
    }

    @Test("DNF terms distribute AND over OR and keep the query's complete order")
    func dnfTerms() {
        let a = filter("a", .equal, .integer(1)), b = filter("b", .equal, .integer(2)), c = filter("c", .greaterThan, .integer(3))
        let q = query([a, .or([b, c])])
        let terms = TargetIndexMatcher.dnfTerms(of: q)
        #expect(terms.map { $0.filters } == [[a, b], [a, c]])
        for term in terms { #expect(term.normalizedOrderBy == q.normalizedOrderBy) }
        let nested = query([.or([.and([a, b]), .and([c, .or([a, b])])])])
        #expect(TargetIndexMatcher.dnfTerms(of: nested).map { $0.filters.map(\.canonicalID) } == [["a==1", "b==2"], ["c>3", "a==1"], ["c>3", "b==2"]])
        let plain = query([a, c])
        #expect(TargetIndexMatcher.dnfTerms(of: plain) == [plain])
    }

    @Test("buildTargetIndex: contains, equalities ascending, then order bys; each field once; no __name__")
    func buildTargetIndex() {
        func built(_ q: Query) -> String? { try! TargetIndexMatcher(q).buildTargetIndex()?.canonicalID }
        let q = query(
            [filter("author", .equal, .string("ada")), filter("tags", .arrayContains, .string("swift")), filter("ts", .lessThan, .integer(9))],
            orderedBy: [desc("ts")])
        #expect(built(q) == "c|author:asc,tags:contains,ts:desc")
        #expect(built(query([filter("a", .equal, .integer(3)), filter("a", .greaterThan, .integer(2))])) == "c|a:asc")
        #expect(built(query([filter("__name__", .equal, ref("c/d")), filter("a", .in, .array([.integer(1)]))])) == "c|a:asc")
        #expect(built(query([filter("a", .greaterThan, .integer(1)), filter("b", .lessThan, .integer(2))])) == "c|a:asc,b:asc")
        #expect(built(query([], orderedBy: [desc("__name__")])) == nil)
        for example in [q, query([filter("a", .greaterThan, .integer(1))], orderedBy: [asc("b")])] {
            let matcher = try! TargetIndexMatcher(example)
            #expect(matcher.servedBy(matcher.buildTargetIndex()!), "\(example)")
            #expect(!matcher.isPartial(matcher.buildTargetIndex()!))
        }
    }

    @Test("an index is partial when a filter or order by of the query has no segment in it")
    func partial() {
        let matcher = try! TargetIndexMatcher(query([filter("a", .equal, .integer(1))], orderedBy: [asc("b")]))
        #expect(matcher.isPartial(index("c", "a")))
        #expect(!matcher.isPartial(index("c", "a", "b")))
        let contains = try! TargetIndexMatcher(query([filter("tags", .arrayContains, .integer(1))]))
        #expect(contains.isPartial(index("c", "tags")))
        #expect(!contains.isPartial(index("c", "tags contains")))
    }

    @Test("the planner picks the serving index with the most segments, the first among equals")
    func bestIndex() {
        let q = query([filter("a", .equal, .integer(1))], orderedBy: [asc("b")])
        let candidates = [index("c", "a"), index("c", "x"), index("c", "a", "b"), index("c", "b"), index("c", "a", "b desc"), index("d", "a", "b", "c")]
        #expect(IndexPlanner.bestIndex(for: q, among: candidates) == index("c", "a", "b"))
        #expect(IndexPlanner.bestIndex(for: q, among: [index("c", "b"), index("c", "a")]) == index("c", "b"))
        #expect(IndexPlanner.bestIndex(for: q, among: [index("c", "x")]) == nil)
    }

    @Test("an OR query is planned term by term, and needs an index for every term")
    func orPlan() throws {
        let q = query([.or([filter("a", .equal, .integer(1)), filter("b", .equal, .integer(2))])])
        let scans = try #require(IndexPlanner.plan(for: q, among: [index("c", "a"), index("c", "b")]))
        #expect(scans.map(\.index) == [index("c", "a"), index("c", "b")])
        #expect(scans.map { $0.term.filters } == [[filter("a", .equal, .integer(1))], [filter("b", .equal, .integer(2))]])
        #expect(IndexPlanner.plan(for: q, among: [index("c", "a")]) == nil)
        #expect(IndexPlanner.bestIndex(for: q, among: [index("c", "a"), index("c", "b")]) == nil)
        #expect(IndexPlanner.scanRanges(for: q, using: index("c", "a")) == nil)
    }
}
