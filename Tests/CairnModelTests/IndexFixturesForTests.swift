import Testing
@testable import CairnModel

/// Short builders for the field-index suites, on top of ``QueryFixtures``.
protocol IndexFixtures: QueryFixtures {}

extension IndexFixtures {
    /// An index from segment specs: `"a"` (ascending), `"a desc"`, `"tags contains"`; dotted paths nest.
    func index(_ group: String, _ specs: String...) -> FieldIndex { index(group, specs) }

    func index(_ group: String, _ specs: [String]) -> FieldIndex {
        let segments = specs.map { spec -> FieldIndex.Segment in
            let parts = spec.split(separator: " ").map(String.init)
            let kind: FieldIndex.Segment.Kind =
                switch parts.dropFirst().first {
                case "desc": .descending
                case "contains": .contains
                default: .ascending
                }
            return FieldIndex.Segment(field(parts[0]), kind)
        }
        return try! FieldIndex(collectionGroup: group, segments: segments)
    }

    /// A query on collection `c` with the given filters and explicit order bys, built through the validating
    /// builders (a test input the builders reject is a test bug).
    func query(_ filters: [Filter] = [], orderedBy orders: [OrderBy] = [], on base: Query? = nil) -> Query {
        var query = base ?? collection("c")
        for filter in filters { query = try! query.filtered(by: filter) }
        for order in orders { query = try! query.ordered(by: order) }
        return query
    }

    /// The keys of the documents that have an entry in one of the ranges, found the way an index view would:
    /// every document's entries, sorted by sort key, filtered by the ranges.
    func keysInRanges(_ ranges: [IndexRange], of index: FieldIndex, _ documents: [Document]) -> Set<DocumentKey> {
        let entries = documents.flatMap(index.entries(for:)).sorted {
            $0.sortKey.lexicographicallyPrecedes($1.sortKey)
        }
        return Set(entries.filter { entry in ranges.contains { $0.contains(entry.sortKey) } }.map(\.key))
    }

    /// What the cache would answer for `query` with `index`: the documents found in the scan ranges, re-checked
    /// with `query.matches`; `nil` when the index does not serve the query.
    func indexedMatches(_ query: Query, _ index: FieldIndex, _ documents: [Document]) -> Set<DocumentKey>? {
        guard let ranges = IndexPlanner.scanRanges(for: query, using: index) else { return nil }
        let found = keysInRanges(ranges, of: index, documents)
        return Set(documents.filter { found.contains($0.key) && query.matches($0) }.map(\.key))
    }

    /// The keys of the documents that match `query`, by scanning them all.
    func scannedMatches(_ query: Query, _ documents: [Document]) -> Set<DocumentKey> {
        Set(documents.filter(query.matches).map(\.key))
    }
}
