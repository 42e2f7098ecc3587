import Foundation
import Testing
@testable import CairnModel

/// Random documents and queries: an index scan, re-checked with `query.matches`, must find exactly what a scan of
/// every document finds. Each run prints its base seed; `CAIRN_INDEX_SEED=<seed>` replays it.
@Suite("Index scans against full scans")
struct IndexPropertyTests: IndexFixtures {
    static let baseSeed = ProcessInfo.processInfo.environment["CAIRN_INDEX_SEED"].flatMap { UInt64($0) } ?? 20_260_901

    /// Filter and field values chosen to collide: numbers equal across int and double, NaN, null, one of each
    /// other type, arrays holding numbers of both kinds.
    var pool: [Value] {
        [
            .null, .boolean(false), .boolean(true), .integer(0), .double(-0.0), .integer(1), .double(1.0), .integer(2),
            .double(2.5), .double(.nan), .double(-.infinity), .string(""), .string("a"), .string("b"), .bytes([1]),
            .timestamp(Timestamp(seconds: 5, nanoseconds: 0)), ref("c/d3"), .geoPoint(GeoPoint(latitude: 1, longitude: 2)),
            .array([]), .array([.integer(1)]), .array([.integer(1), .string("a")]), .array([.double(1.0), .null]),
            .map(ObjectValue(["x": .integer(1)])),
        ]
    }

    var arrays: [Value] { pool.filter(\.isArray) + [.array([.string("a"), .string("b"), .string("a")]), .array([.integer(2), .double(.nan)])] }

    let fields = ["a", "b", "m.x", "tags"]

    func randomDocument(_ number: Int, inOtherCollections: Bool, _ rng: inout SeededRandom) -> Document {
        let paths = inOtherCollections ? ["c/d\(number)", "c/d\(number)", "x/y/c/d\(number)", "other/d\(number)"] : ["c/d\(number)"]
        var fields: [String: Value] = [:]
        for name in ["a", "b"] where Int.random(in: 0..<6, using: &rng) > 0 { fields[name] = pool.randomElement(using: &rng)! }
        if Int.random(in: 0..<3, using: &rng) > 0 {
            fields["m"] = Bool.random(using: &rng) ? .map(ObjectValue(["x": pool.randomElement(using: &rng)!])) : .integer(7)
        }
        if Int.random(in: 0..<4, using: &rng) > 0 {
            fields["tags"] = Int.random(in: 0..<4, using: &rng) > 0 ? arrays.randomElement(using: &rng)! : pool.randomElement(using: &rng)!
        }
        if Int.random(in: 0..<20, using: &rng) == 0 {
            fields["a"] = .serverTimestamp(localWriteTime: Timestamp(seconds: 9, nanoseconds: 0), previous: nil)
        }
        return doc(paths.randomElement(using: &rng)!, fields)
    }

    func randomFieldFilter(_ ops: [FilterOperator], _ rng: inout SeededRandom) -> Filter {
        let op = ops.randomElement(using: &rng)!
        if !op.isArrayOperator && Int.random(in: 0..<10, using: &rng) == 0 {
            let keys = (0..<3).map { _ in ref("c/d\(Int.random(in: 0..<50, using: &rng))") }
            return filter("__name__", op, op.takesArrayOfValues ? .array(keys) : keys[0])
        }
        let operand: Value =
            op.takesArrayOfValues
            ? .array((0..<Int.random(in: 1...3, using: &rng)).map { _ in pool.randomElement(using: &rng)! })
            : pool.randomElement(using: &rng)!
        return filter(fields.randomElement(using: &rng)!, op, operand)
    }

    /// A random query on `c` through the validating builders (steps they reject are skipped); with `or`, some
    /// filters are OR trees.
    func randomQuery(
        _ ops: [FilterOperator], or: Bool, orders: Bool, documents: [Document] = [], _ rng: inout SeededRandom
    ) -> Query {
        var query = collection("c")
        for _ in 0..<Int.random(in: 1...(or ? 3 : 2), using: &rng) {
            var next = randomFieldFilter(ops, &rng)
            if or && Bool.random(using: &rng) {
                next = .or((0..<Int.random(in: 2...3, using: &rng)).map { _ in
                    Bool.random(using: &rng) ? randomFieldFilter(ops, &rng) : .and([randomFieldFilter(ops, &rng), randomFieldFilter(ops, &rng)])
                })
            }
            query = (try? query.filtered(by: next)) ?? query
        }
        guard orders else { return query }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let name = ["a", "b", "m.x", "__name__"].randomElement(using: &rng)!
            query = (try? query.ordered(by: OrderBy(field(name), descending: Bool.random(using: &rng)))) ?? query
        }
        if let document = documents.randomElement(using: &rng), Int.random(in: 0..<4, using: &rng) == 0 {
            let bound = try? query.bound(at: document, inclusive: Bool.random(using: &rng), database: database)
            query = Bool.random(using: &rng) ? query.withStart(bound) : query.withEnd(bound)
        } else if !query.explicitOrderBy.isEmpty && Int.random(in: 0..<3, using: &rng) == 0 {
            let values = query.explicitOrderBy.prefix(Int.random(in: 1...query.explicitOrderBy.count, using: &rng)).map { order in
                order.field.isDocumentKey ? ref("c/d\(Int.random(in: 0..<50, using: &rng))") : pool.randomElement(using: &rng)!
            }
            let cursor = [query.starting(at:), query.starting(after:), query.ending(at:), query.ending(before:)].randomElement(using: &rng)!
            query = (try? cursor(values)) ?? query
        }
        return query
    }

    /// Indexes on `c` (and one on another group) with random segments.
    func randomIndexes(_ rng: inout SeededRandom) -> [FieldIndex] {
        (0..<3).compactMap { _ in
            var segments: [FieldIndex.Segment] = []
            for name in (fields + ["__name__"]).shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)) {
                let kinds: [FieldIndex.Segment.Kind] = name == "__name__" ? [.ascending, .descending] : [.ascending, .descending, .contains]
                segments.append(.init(field(name), kinds.randomElement(using: &rng)!))
            }
            return try? FieldIndex(collectionGroup: Int.random(in: 0..<6, using: &rng) == 0 ? "other" : "c", segments: segments)
        }
    }

    /// The documents in one set of keys and not the other, with their fields, for failure messages.
    func difference(_ found: Set<DocumentKey>, _ expected: Set<DocumentKey>, _ documents: [Document]) -> String {
        let keys = found.symmetricDifference(expected)
        return documents.filter { keys.contains($0.key) }.map { "\($0.key) \($0.data.fields)" }.joined(separator: "; ")
    }

    /// Messages for ranges that are not sorted, disjoint, non-empty half-open intervals.
    func rangeProblems(_ ranges: [IndexRange]) -> [String] {
        var problems: [String] = []
        for range in ranges where range.isEmpty || !range.lowerInclusive || range.upperInclusive {
            problems.append("bad range \(range)")
        }
        for (x, y) in zip(ranges, ranges.dropFirst()) where !x.upper.lexicographicallyPrecedes(y.lower) {
            problems.append("ranges \(x) and \(y) overlap, touch or are out of order")
        }
        return problems
    }

    @Test("AND queries: the planner's best index, scanned and re-checked, finds exactly the matching documents")
    func conjunctions() {
        print("IndexPropertyTests: base seed \(Self.baseSeed) (replay with CAIRN_INDEX_SEED=\(Self.baseSeed))")
        var served = 0, nonEmpty = 0
        for seed in Self.baseSeed..<(Self.baseSeed + 600) {
            var rng = SeededRandom(seed: seed)
            let documents = (0..<80).map { randomDocument($0, inOtherCollections: true, &rng) }
            let query = randomQuery(FilterOperator.allCases, or: false, orders: true, documents: documents, &rng)
            let built = try! TargetIndexMatcher(query).buildTargetIndex()
            let withBuilt = Int.random(in: 0..<4, using: &rng) > 0
            let candidates = randomIndexes(&rng) + (withBuilt ? built.map { [$0] } ?? [] : [])
            guard let index = IndexPlanner.bestIndex(for: query, among: candidates) else { continue }
            served += 1
            let ranges = IndexPlanner.scanRanges(for: query, using: index)!
            let expected = scannedMatches(query, documents)
            if !expected.isEmpty { nonEmpty += 1 }
            let problems = rangeProblems(ranges)
            let found = indexedMatches(query, index, documents)!
            if found != expected || !problems.isEmpty {
                let message =
                    "seed \(seed) (CAIRN_INDEX_SEED=\(seed)): \(query) on \(index): found \(found.sorted()), expected "
                    + "\(expected.sorted()); \(problems.prefix(3)); differing: \(difference(found, expected, documents))"
                Issue.record(Comment(rawValue: message))
                return
            }
        }
        #expect(served > 300, "too few queries had a serving index: the generator explores too little")
        #expect(nonEmpty > 100, "too few served queries had matches")
    }

    @Test("OR queries: the union of the per-term scans, re-checked, finds exactly the matching documents")
    func disjunctions() {
        var planned = 0, nonEmpty = 0
        for seed in Self.baseSeed..<(Self.baseSeed + 300) {
            var rng = SeededRandom(seed: seed)
            let documents = (0..<40).map { randomDocument($0, inOtherCollections: true, &rng) }
            let query = randomQuery(FilterOperator.allCases, or: true, orders: Bool.random(using: &rng), &rng)
            let terms = TargetIndexMatcher.dnfTerms(of: query)
            let built = terms.compactMap { TargetIndexMatcher(term: $0).buildTargetIndex() }
            guard let scans = IndexPlanner.plan(for: query, among: randomIndexes(&rng) + built) else { continue }
            planned += 1
            let found = Set(scans.flatMap { keysInRanges($0.ranges, of: $0.index, documents) })
            let result = Set(documents.filter { found.contains($0.key) && query.matches($0) }.map(\.key))
            let expected = scannedMatches(query, documents)
            if !expected.isEmpty { nonEmpty += 1 }
            if result != expected {
                let message = "seed \(seed) (CAIRN_INDEX_SEED=\(seed)): \(query): differing: \(difference(result, expected, documents))"
                Issue.record(Comment(rawValue: message))
                return
            }
        }
        #expect(planned > 180)
        #expect(nonEmpty > 50)
    }

    @Test("== and one range field on an index built for the query: the ranges alone hold exactly the matches")
    func exactRanges() {
        var checked = 0, nonEmpty = 0
        for seed in Self.baseSeed..<(Self.baseSeed + 400) {
            var rng = SeededRandom(seed: seed)
            let documents = (0..<50).map { randomDocument($0, inOtherCollections: false, &rng) }
            let query = randomQuery([.equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual], or: false, orders: false, &rng)
            let filters = query.filters.flatMap(\.flattenedFilters)
            guard query.inequalityFields.count <= 1, !filters.contains(where: \.field.isDocumentKey),
                let index = try! TargetIndexMatcher(query).buildTargetIndex()
            else { continue }
            checked += 1
            let found = keysInRanges(IndexPlanner.scanRanges(for: query, using: index)!, of: index, documents)
            let expected = scannedMatches(query, documents)
            if !expected.isEmpty { nonEmpty += 1 }
            if found != expected {
                let message = "seed \(seed) (CAIRN_INDEX_SEED=\(seed)): \(query) on \(index): differing: \(difference(found, expected, documents))"
                Issue.record(Comment(rawValue: message))
                return
            }
        }
        #expect(checked > 200)
        #expect(nonEmpty > 80)
    }
}
