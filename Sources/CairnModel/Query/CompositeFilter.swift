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
public struct CompositeFilter: Sendable, Hashable, CustomStringConvertible {
    /// How the sub-filters combine.
    public enum Operator: String, Sendable, Hashable {
        case and
        case or
    }

    public var op: Operator
    public var filters: [Filter]

    public init(_ op: Operator, _ filters: [Filter]) {
        self.op = op
        self.filters = filters
    }

    public var isConjunction: Bool { op == .and }
    public var isDisjunction: Bool { op == .or }

    /// True when every sub-filter is a field filter (no nested composites).
    public var isFlat: Bool {
        filters.allSatisfy { if case .field = $0 { true } else { false } }
    }

    /// True for an AND of field filters only: the shape a list of `whereField` calls has.
    public var isFlatConjunction: Bool { isConjunction && isFlat }

    /// Whether the document satisfies all (AND) or any (OR) of the sub-filters.
    public func matches(_ document: Document) -> Bool {
        switch op {
        case .and: filters.allSatisfy { $0.matches(document) }
        case .or: filters.contains { $0.matches(document) }
        }
    }

    /// The field filters of the whole tree, depth first, in order (SDK `GetFlattenedFilters`).
    public var flattenedFilters: [FieldFilter] { filters.flatMap(\.flattenedFilters) }

    /// The composite's part of a query canonical id. A flat conjunction is its filters' ids joined with `,`, so
    /// `where(a).where(b)` and `where(and(a, b))` share an id (and a cached target), as in the SDKs; any other
    /// composite is `and(…)` or `or(…)` around its sub-filters' ids joined with `,` (JS `canonifyFilter`).
    public var canonicalID: String {
        let parts = filters.map(\.canonicalID).joined(separator: ",")
        return isFlatConjunction ? parts : "\(op.rawValue)(\(parts))"
    }

    public var description: String { canonicalID }
}
