import Testing
@testable import CairnModel

@Suite("Aggregations: aliases and targets")
struct AggregateFieldTests: QueryFixtures {
    @Test("aliases are count, sum_<field>, avg_<field> with the field's escaped path; equal aggregations share one")
    func aliases() throws {
        #expect(AggregateField.count.alias == "count")
        #expect(AggregateField.sum(field("pages")).alias == "sum_pages")
        #expect(AggregateField.average(field("a.b")).alias == "avg_a.b")
        #expect(AggregateField.sum(try FieldPath(["a.b", "c"])).alias == "sum_`a.b`.c")
        #expect(AggregateField.sum(field("x")).alias != AggregateField.average(field("x")).alias)
        #expect(AggregateField.sum(field("x")) == AggregateField.sum(field("x")))
        #expect("\(AggregateField.average(field("rating")))" == "avg(rating)")
        #expect("\(AggregateField.count)" == "count()")
    }

    @Test("the aggregate target has only the explicit order bys: no inequality field, no __name__")
    func aggregateTargetKeepsExplicitOrder() throws {
        let q = try collection("c").filtered(by: filter("b", .greaterThan, .integer(1))).ordered(by: asc("a"))
            .starting(at: [.integer(1)]).limited(to: 5)
        #expect(q.target.orderBy == [asc("a"), asc("b"), OrderBy.documentKey(descending: false)])
        let target = q.aggregateTarget
        #expect(target.orderBy == [asc("a")])
        #expect(target.filters == q.filters && target.limit == 5)
        #expect(target.startAt == Bound(position: [.integer(1)], inclusive: true) && target.endAt == nil)
        #expect(try collection("c").filtered(by: filter("b", .greaterThan, .integer(1))).aggregateTarget.orderBy.isEmpty)
    }

    @Test("a limit(toLast:) aggregate target flips the explicit order bys and swaps the cursors")
    func limitToLastAggregateTarget() throws {
        let q = try collection("c").ordered(by: asc("a")).ordered(by: desc("b"))
            .starting(after: [.integer(1)]).ending(at: [.integer(9), .string("z")]).limitedToLast(3)
        let target = q.aggregateTarget
        #expect(target.orderBy == [desc("a"), asc("b")])
        #expect(target.limit == 3)
        #expect(target.startAt == Bound(position: [.integer(9), .string("z")], inclusive: true))
        #expect(target.endAt == Bound(position: [.integer(1)], inclusive: false))
    }
}
