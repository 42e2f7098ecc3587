/// Filters joined by AND or OR, as the public API's `Filter.andFilter` / `Filter.orFilter` build them
/// (iOS `core/composite_filter.cc`).
///
/// An AND matches when every sub-filter matches (so an empty AND matches everything); an OR when at least
/// one does (so an empty OR matches nothing). ``Query/filtered(by:)`` drops empty composites and replaces a
/// composite of one filter by that filter, as the SDKs do when they parse a filter, so queries never hold
/// either.
///
/// ```swift
/// let cheapOrRed = CompositeFilter(.or, [
///     .field(FieldFilter(FieldPath(segments: ["price"]), .lessThan, .integer(10))),
///     .field(FieldFilter(FieldPath(segments: ["color"]), .equal, .string("red"))),
/// ])
/// cheapOrRed.canonicalID   // or(price<10,color=="red")
/// ```
package struct CompositeFilter: Sendable, Hashable, CustomStringConvertible {
    /// How the sub-filters combine.
    package enum Operator: String, Sendable, Hashable {
        case and
        case or
    }

    package var op: Operator
    package var filters: [Filter]

    package init(_ op: Operator, _ filters: [Filter]) {
        self.op = op
        self.filters = filters
    }

    package var isConjunction: Bool { op == .and }
    package var isDisjunction: Bool { op == .or }

    /// True when every sub-filter is a field filter (no nested composites).
    package var isFlat: Bool {
        filters.allSatisfy { if case .field = $0 { true } else { false } }
    }

    /// True for an AND of field filters only: the shape a list of `whereField` calls has.
    package var isFlatConjunction: Bool { isConjunction && isFlat }

    /// Whether the document satisfies all (AND) or any (OR) of the sub-filters.
    package func matches(_ document: Document) -> Bool {
        switch op {
        case .and: filters.allSatisfy { $0.matches(document) }
        case .or: filters.contains { $0.matches(document) }
        }
    }

    /// The field filters of the whole tree, depth first, in order (SDK `GetFlattenedFilters`).
    package var flattenedFilters: [FieldFilter] { filters.flatMap(\.flattenedFilters) }

    /// The composite's part of a query canonical id. A flat conjunction is its filters' ids joined with `,`, so
    /// `where(a).where(b)` and `where(and(a, b))` share an id (and a cached target), as in the SDKs; any other
    /// composite is `and(…)` or `or(…)` around its sub-filters' ids joined with `,` (JS `canonifyFilter`).
    package var canonicalID: String {
        let parts = filters.map(\.canonicalID).joined(separator: ",")
        return isFlatConjunction ? parts : "\(op.rawValue)(\(parts))"
    }

    package var description: String { canonicalID }
}
