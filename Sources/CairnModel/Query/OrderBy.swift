/// One sort key of a query: a field and a direction (iOS `core/order_by.cc`).
///
/// Documents compare by ``Value/compare(_:_:)`` of the field's values (Firestore's total order across
/// types), or by document key when the field is ``FieldPath/documentKey`` (`__name__`), and the result is
/// reversed for a descending order.
///
/// ```swift
/// let newestFirst = OrderBy(FieldPath(segments: ["createdAt"]), descending: true)
/// newestFirst.canonicalID                 // "createdAtdesc"
/// newestFirst.compare(older, newer)       // 1: older sorts after newer
/// ```
package struct OrderBy: Sendable, Hashable, CustomStringConvertible {
    package var field: FieldPath
    package var descending: Bool

    package init(_ field: FieldPath, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// The document key ordering, `__name__` ascending or descending.
    package static func documentKey(descending: Bool) -> OrderBy {
        OrderBy(.documentKey, descending: descending)
    }

    /// The same field in the opposite direction (used to run `limit(toLast:)` queries).
    package var reversed: OrderBy { OrderBy(field, descending: !descending) }

    /// Compares two documents on this sort key: -1 when `a` comes first, 0 when they tie, 1 otherwise.
    ///
    /// A document missing the field sorts before one that has it (the SDKs assert instead: a query never
    /// compares documents that lack an order-by field, because they do not match it).
    package func compare(_ a: Document, _ b: Document) -> Int {
        let result: Int
        if field.isDocumentKey {
            result = Self.compareKeys(a.key, b.key)
        } else {
            result = Self.compareOptionalValues(a.data.value(at: field), b.data.value(at: field))
        }
        return directed(result)
    }

    /// Applies the direction to a comparison made in ascending order.
    func directed(_ comparison: Int) -> Int { descending ? -comparison : comparison }

    /// The order-by's part of a canonical id: the escaped field path followed by `asc` or `desc`, with no
    /// separator (SDK `OrderBy::CanonicalId`).
    package var canonicalID: String { field.canonicalString + (descending ? "desc" : "asc") }

    package var description: String { canonicalID }

    /// Document keys in `__name__` order (segment by segment, the server's key order): -1, 0 or 1.
    static func compareKeys(_ a: DocumentKey, _ b: DocumentKey) -> Int {
        PathSegmentOrder.compare(a.path.segments, b.path.segments)
    }

    /// ``Value/compare(_:_:)`` where a missing value sorts before every value.
    static func compareOptionalValues(_ a: Value?, _ b: Value?) -> Int {
        switch (a, b) {
        case let (a?, b?): Value.compare(a, b)
        case (nil, nil): 0
        case (nil, _?): -1
        case (_?, nil): 1
        }
    }
}
