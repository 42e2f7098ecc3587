/// A query filter: one ``FieldFilter`` or a ``CompositeFilter`` tree of them (iOS `core/filter.h`).
///
/// A query holds a list of filters that are ANDed together; each may be a tree of ANDs and ORs.
///
/// ```swift
/// let age = FieldPath(segments: ["age"])
/// let filter = Filter.or([
///     .field(FieldFilter(age, .lessThan, .integer(13))),
///     .field(FieldFilter(age, .greaterThanOrEqual, .integer(65))),
/// ])
/// filter.flattenedFilters.count   // 2
/// filter.matches(document)        // true for children and seniors
/// ```
package indirect enum Filter: Sendable, Hashable, CustomStringConvertible {
    case field(FieldFilter)
    case composite(CompositeFilter)

    /// An AND of the given filters.
    package static func and(_ filters: [Filter]) -> Filter { .composite(CompositeFilter(.and, filters)) }

    /// An OR of the given filters.
    package static func or(_ filters: [Filter]) -> Filter { .composite(CompositeFilter(.or, filters)) }

    /// Whether the document satisfies the filter.
    package func matches(_ document: Document) -> Bool {
        switch self {
        case .field(let filter): filter.matches(document)
        case .composite(let filter): filter.matches(document)
        }
    }

    /// Every field filter in the tree, depth first, in order (SDK `GetFlattenedFilters`): what validation and
    /// index planning look at.
    package var flattenedFilters: [FieldFilter] {
        switch self {
        case .field(let filter): [filter]
        case .composite(let filter): filter.flattenedFilters
        }
    }

    /// True for a composite filter without any field filter in it: it constrains nothing.
    package var isEmpty: Bool { flattenedFilters.isEmpty }

    /// True when the tree contains an OR (a disjunction) anywhere.
    package var containsDisjunction: Bool {
        switch self {
        case .field: false
        case .composite(let filter): filter.isDisjunction || filter.filters.contains { $0.containsDisjunction }
        }
    }

    /// The filter as the SDKs parse a user's filter (`parseCompositeFilter`): empty composites are dropped and
    /// a composite of a single filter is replaced by that filter, at every level. The result matches the same
    /// documents. A composite that ends up empty stays an empty composite (check ``isEmpty``).
    ///
    /// ```swift
    /// Filter.and([.or([single])]).simplified == single   // true
    /// ```
    package var simplified: Filter {
        guard case .composite(let composite) = self else { return self }
        let children = composite.filters.map(\.simplified).filter { !$0.isEmpty }
        if children.count == 1 { return children[0] }
        return .composite(CompositeFilter(composite.op, children))
    }

    /// The filter's part of a query canonical id (see ``FieldFilter/canonicalID`` and
    /// ``CompositeFilter/canonicalID``).
    package var canonicalID: String {
        switch self {
        case .field(let filter): filter.canonicalID
        case .composite(let filter): filter.canonicalID
        }
    }

    package var description: String { canonicalID }
}
