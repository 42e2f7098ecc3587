import CairnModel

/// What a collection scan reads from each document before deciding to decode it: the fields of the query's
/// top-level field filters and, when the scan may keep only the first `limit` documents, of its order-by.
///
/// A scan decodes a document only when its encoded (or cached, ``FieldValueCache``) field values pass every
/// filter. The filters are ANDed into the query, so a document failing one cannot match.
///
/// **Selection.** A limit query whose matches are exactly "in scope, passes the field filters, has every
/// order-by field" — no OR filter, no filter on `__name__`, no cursor — may keep only the `limit` best
/// documents in query order (a bounded heap, ``TopSelection``) and decode just those: any other remote document
/// that matches sorts after them, so it cannot be in the answer. Documents with pending writes are added by
/// the query engine afterwards and compete with these in `Query.results(from:)`.
///
/// ```swift
/// let plan = ScanPlan(query)   // amount > 500 order by amount limit 20
/// plan.fields                  // [amount]: one value read per document
/// plan.selection?.limit        // 20: only 20 documents decoded
/// ```
struct ScanPlan {
    /// How a selecting scan ranks documents: by these fields (indexes into ``fields``), then by key.
    struct Selection {
        var limit: Int
        var orders: [(slot: Int, descending: Bool)]
        var keyDescending: Bool
    }

    /// The filters tested before decoding.
    let filters: [FieldFilter]
    /// The distinct fields read from each document.
    let fields: [FieldPath]
    /// For each filter, the index of its field in ``fields``.
    let filterSlots: [Int]
    /// Set when the scan may keep only the first `limit` documents in query order.
    let selection: Selection?

    init(_ query: Query) {
        filters = QueryEngine.prefilters(of: query)
        var fields: [FieldPath] = []
        func slot(_ field: FieldPath) -> Int {
            if let index = fields.firstIndex(of: field) { return index }
            fields.append(field)
            return fields.count - 1
        }
        filterSlots = filters.map { slot($0.field) }
        selection = Self.selection(query, filterCount: filters.count) { slot($0) }
        self.fields = fields
    }

    /// The ranking of a limit query whose matches the scan can decide from field values alone; nil otherwise.
    /// For `limit(toLast:)` the ranking is reversed: its answer is the last documents in query order.
    private static func selection(_ query: Query, filterCount: Int, slot: (FieldPath) -> Int) -> Selection? {
        guard let limit = query.limit, query.filters.count == filterCount, query.startAt == nil, query.endAt == nil
        else { return nil }
        let reversed = query.limitType == .last
        var orders: [(slot: Int, descending: Bool)] = []
        for order in query.normalizedOrderBy {
            if order.field.isDocumentKey {
                return Selection(limit: limit, orders: orders, keyDescending: order.descending != reversed)
            }
            orders.append((slot(order.field), order.descending != reversed))
        }
        return nil
    }

    /// Whether field values read for ``fields`` pass every filter.
    @inline(__always)
    func passes(_ values: [Value?]) -> Bool {
        for index in filters.indices where !filters[index].matches(fieldValue: values[filterSlots[index]]) {
            return false
        }
        return true
    }

    /// Whether a document with these values can be ranked: it has every order-by field (one that lacks one
    /// does not match the query).
    @inline(__always)
    func hasOrderFields(_ values: [Value?]) -> Bool {
        guard let selection else { return true }
        return selection.orders.allSatisfy { values[$0.slot] != nil }
    }
}
