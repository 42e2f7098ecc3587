import Testing
@testable import CairnModel

@Suite("Query cursors")
struct QueryCursorTests: QueryFixtures {
    /// Documents c/1 ... c/5 with a = 10, 20, 20, 30, 40.
    var documents: [Document] {
        zip(1..., [10, 20, 20, 30, 40]).map { doc("c/\($0)", ["a": .integer(Int64($1))]) }
    }

    func ids(_ query: Query) -> [String] { query.results(from: documents).map(\.key.documentID) }

    @Test("startAt includes the position, startAfter excludes it; endAt includes, endBefore excludes")
    func fourCursors() throws {
        let q = try collection("c").ordered(by: asc("a"))
        #expect(try ids(q.starting(at: [.integer(20)])) == ["2", "3", "4", "5"])
        #expect(try ids(q.starting(after: [.integer(20)])) == ["4", "5"])
        #expect(try ids(q.ending(at: [.integer(20)])) == ["1", "2", "3"])
        #expect(try ids(q.ending(before: [.integer(20)])) == ["1"])
        #expect(try ids(q.starting(after: [.integer(10)]).ending(before: [.integer(40)])) == ["2", "3", "4"])
    }

    @Test("on a descending order, start and end follow query order: startAt(20) keeps 20 and below")
    func descending() throws {
        let q = try collection("c").ordered(by: desc("a"))
        #expect(try ids(q.starting(at: [.integer(20)])) == ["3", "2", "1"])
        #expect(try ids(q.ending(before: [.integer(20)])) == ["5", "4"])
    }

    @Test("a cursor between values needs no exact match, and compares numbers across int and double")
    func betweenValues() throws {
        let q = try collection("c").ordered(by: asc("a"))
        #expect(try ids(q.starting(at: [.double(19.5)])) == ["2", "3", "4", "5"])
        #expect(try ids(q.starting(after: [.double(20.0)])) == ["4", "5"])
        #expect(try ids(q.ending(at: [.string("x")])) == ["1", "2", "3", "4", "5"])  // strings sort after numbers
    }

    @Test("a cursor with a key component positions between documents with equal values")
    func keyComponent() throws {
        let q = try collection("c").ordered(by: asc("a")).ordered(by: asc("__name__"))
        #expect(try ids(q.starting(after: [.integer(20), ref("c/2")])) == ["3", "4", "5"])
        #expect(try ids(q.ending(before: [.integer(20), ref("c/3")])) == ["1", "2"])
    }

    @Test("a bound at a document continues exactly after it, even among equal values")
    func boundAtDocument() throws {
        let q = try collection("c").ordered(by: asc("a"))
        let after2 = q.withStart(try q.bound(at: documents[1], inclusive: false, database: database))
        #expect(ids(after2) == ["3", "4", "5"])
        let through3 = q.withEnd(try q.bound(at: documents[2], inclusive: true, database: database))
        #expect(ids(through3) == ["1", "2", "3"])
    }

    @Test("sortsBefore and sortsAfter compare only the bound's components")
    func partialPositions() {
        let order = [asc("a"), asc("b"), OrderBy.documentKey(descending: false)]
        let document = doc("c/d", ["a": .integer(1), "b": .integer(5)])
        let atA1 = Bound(position: [.integer(1)], inclusive: true)
        #expect(atA1.sortsBefore(document, orderedBy: order) && atA1.sortsAfter(document, orderedBy: order))
        let afterA1 = Bound(position: [.integer(1)], inclusive: false)
        #expect(!afterA1.sortsBefore(document, orderedBy: order) && !afterA1.sortsAfter(document, orderedBy: order))
        let atA1B6 = Bound(position: [.integer(1), .integer(6)], inclusive: false)
        #expect(!atA1B6.sortsBefore(document, orderedBy: order) && atA1B6.sortsAfter(document, orderedBy: order))
        #expect(atA1B6.compare(to: document, orderedBy: order) == 1)
    }

    @Test("limit keeps the first documents, limit(toLast:) the last ones in query order")
    func limits() throws {
        let q = try collection("c").ordered(by: asc("a"))
        #expect(try ids(q.limited(to: 2)) == ["1", "2"])
        #expect(try ids(q.limitedToLast(2)) == ["4", "5"])
        #expect(try ids(q.limitedToLast(9)) == ["1", "2", "3", "4", "5"])
        #expect(try ids(q.starting(after: [.integer(10)]).ending(before: [.integer(40)]).limitedToLast(2)) == ["3", "4"])
    }
}

@Suite("Query targets")
struct QueryTargetTests: QueryFixtures {
    @Test("a plain query's target has its normalized order, limit and cursors unchanged")
    func plainTarget() throws {
        let q = try collection("c").filtered(by: filter("b", .greaterThan, .integer(1))).ordered(by: asc("a"))
            .starting(at: [.integer(1)]).ending(before: [.integer(9)]).limited(to: 5)
        let target = q.target
        #expect(target.orderBy == q.normalizedOrderBy)
        #expect(target.limit == 5 && target.startAt == q.startAt && target.endAt == q.endAt)
        #expect(target.canonicalID == "c|f:b>1|ob:aasc,basc,__name__asc|l:5|lb:b:1|ub:b:9")
        #expect(q.canonicalID == target.canonicalID + "|lt:f")
    }

    @Test("limit(toLast:) runs as a limit with every direction flipped and the cursors swapped")
    func limitToLastTarget() throws {
        let q = try collection("c").ordered(by: asc("a")).ordered(by: desc("b"))
            .starting(after: [.integer(1)]).ending(at: [.integer(9), .string("z")]).limitedToLast(3)
        let target = q.target
        #expect(target.orderBy == [desc("a"), asc("b"), OrderBy.documentKey(descending: false)])
        #expect(target.limit == 3)
        #expect(target.startAt == Bound(position: [.integer(9), .string("z")], inclusive: true))
        #expect(target.endAt == Bound(position: [.integer(1)], inclusive: false))
        #expect(target.canonicalID == "c|f:|ob:adesc,basc,__name__asc|l:3|lb:b:9,\"z\"|ub:b:1")
        #expect(q.canonicalID == target.canonicalID + "|lt:l")
    }

    @Test("the flipped target, read first-to-last and reversed, gives the limit(toLast:) results")
    func flippedTargetRunsTheQuery() throws {
        let documents = (1...8).map { doc("c/\($0)", ["a": .integer(Int64($0 % 3))]) }
        let q = try collection("c").ordered(by: desc("a")).starting(at: [.integer(2)]).ending(at: [.integer(1)]).limitedToLast(3)
        let t = q.target
        let asFirst = Query(
            path: t.path, collectionGroup: t.collectionGroup, filters: t.filters, explicitOrderBy: t.orderBy,
            limit: t.limit, limitType: .first, startAt: t.startAt, endAt: t.endAt)
        #expect(asFirst.results(from: documents).reversed().map(\.key) == q.results(from: documents).map(\.key))
        #expect(q.results(from: documents).map(\.key.documentID) == ["7", "4", "1"])
    }

    @Test("canonical ids: collection group, composite filters, limits; equal queries share one")
    func canonicalIDs() throws {
        let group = try Query(path: .root, collectionGroup: "m")
            .filtered(by: .or([filter("a", .equal, .integer(1)), filter("b", .equal, .string("x"))]))
        #expect(group.canonicalID == "|cg:m|f:or(a==1,b==\"x\")|ob:__name__asc")
        let twoWheres = try collection("c").filtered(by: filter("a", .equal, .integer(1))).filtered(by: filter("b", .equal, .integer(2)))
        let oneAnd = try collection("c").filtered(by: .and([filter("a", .equal, .integer(1)), filter("b", .equal, .integer(2))]))
        #expect(twoWheres.canonicalID == "c|f:a==1,b==2|ob:__name__asc")
        #expect(oneAnd.canonicalID == twoWheres.canonicalID)
        #expect(try collection("c").ordered(by: asc("__name__")) == collection("c"))
        #expect(try collection("c").limited(to: 2) != collection("c").limitedToLast(2))
        #expect(try collection("c").limited(to: 2).canonicalID != collection("c").limitedToLast(2).canonicalID)
        #expect(collection("c/d").target.isDocumentTarget)
    }
}
