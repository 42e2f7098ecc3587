/// A query cursor: a position in a query's order and whether documents exactly at it are included
/// (iOS `core/bound.cc`).
///
/// `position[i]` is a value for the query's i-th normalized order-by (a `.reference` for `__name__`); a bound
/// may have fewer values than there are order-bys, and then only those are compared. The four public cursors
/// map onto it as follows:
///
/// | API | bound | keeps a document when |
/// |---|---|---|
/// | `start(at:)` | `startAt`, inclusive | ``sortsBefore(_:orderedBy:)``: the position is before or at it |
/// | `start(after:)` | `startAt`, exclusive | the position is strictly before it |
/// | `end(at:)` | `endAt`, inclusive | ``sortsAfter(_:orderedBy:)``: the position is after or at it |
/// | `end(before:)` | `endAt`, exclusive | the position is strictly after it |
///
/// "Before" and "after" are in query order: on a descending order-by a larger value comes first.
///
/// ```swift
/// let order = [OrderBy(FieldPath(segments: ["age"])), OrderBy.documentKey(descending: false)]
/// let fromTwenty = Bound(position: [.integer(20)], inclusive: true)
/// fromTwenty.sortsBefore(documentAged20, orderedBy: order)   // true: startAt(20) keeps age 20
/// Bound(position: [.integer(20)], inclusive: false).sortsBefore(documentAged20, orderedBy: order)  // false
/// ```
package struct Bound: Sendable, Hashable, CustomStringConvertible {
    package var position: [Value]
    package var inclusive: Bool

    package init(position: [Value], inclusive: Bool) {
        self.position = position
        self.inclusive = inclusive
    }

    /// True when the document is at or after this position in query order (strictly after when the bound is
    /// exclusive): the test a start cursor applies.
    package func sortsBefore(_ document: Document, orderedBy orderBy: [OrderBy]) -> Bool {
        let comparison = compare(to: document, orderedBy: orderBy)
        return inclusive ? comparison <= 0 : comparison < 0
    }

    /// True when the document is at or before this position in query order (strictly before when the bound is
    /// exclusive): the test an end cursor applies.
    package func sortsAfter(_ document: Document, orderedBy orderBy: [OrderBy]) -> Bool {
        let comparison = compare(to: document, orderedBy: orderBy)
        return inclusive ? comparison >= 0 : comparison > 0
    }

    /// Compares the position with the document in query order, component by component: -1 when the position
    /// comes first, 0 when every component ties, 1 when the document comes first.
    ///
    /// A `__name__` component that is not a reference (which the query builders reject) compares by type
    /// order against a reference; a document missing a compared field sorts first (see ``OrderBy/compare(_:_:)``).
    package func compare(to document: Document, orderedBy orderBy: [OrderBy]) -> Int {
        for (component, order) in zip(position, orderBy) {
            let comparison: Int
            if order.field.isDocumentKey {
                if let key = FieldFilter.referencedKey(component) {
                    comparison = OrderBy.compareKeys(key, document.key)
                } else {
                    comparison = component.typeOrder < .reference ? -1 : 1
                }
            } else {
                comparison = OrderBy.compareOptionalValues(component, document.data.value(at: order.field))
            }
            if comparison != 0 { return order.directed(comparison) }
        }
        return 0
    }

    /// The position's part of a canonical id: the values' canonical strings joined with `,`.
    package var positionCanonicalID: String { position.map(\.canonicalString).joined(separator: ",") }

    package var description: String {
        "Bound(position: [\(positionCanonicalID)], inclusive: \(inclusive))"
    }
}
