import CairnCore
import CairnModel
import SwiftProtobuf

/// Queries: a CairnModel ``QueryTarget`` to `StructuredQuery` under its parent resource name, as the SDKs send it.
///
/// * `from`: a collection query reads `collection_id` = the path's last segment under the parent path; a collection
///   group query reads `collection_id` = the group with `all_descendants` under the query path.
/// * `where`: one filter is sent as itself, several as a composite AND; `== null`, `== NaN`, `!= null` and
///   `!= NaN` become the unary IS_NULL, IS_NAN, IS_NOT_NULL and IS_NOT_NAN.
/// * `order_by`: the target's normalized order (explicit orders, then inequality fields, then `__name__`).
/// * `start_at` = `Cursor(values, before: inclusive)`, `end_at` = `Cursor(values, before: !inclusive)`.
/// * `limit` as `Int32Value`. A limit-to-last query is flipped by ``Query/target`` (reversed orders, swapped
///   bounds) before it gets here; the caller reverses the results, as Firebase does.
extension FirestoreSerializer {
    /// The parent resource name and structured query of a query target.
    package func encodeQueryTarget(
        _ target: QueryTarget
    ) throws(FirestoreErrorCode) -> Google_Firestore_V1_Target.QueryTarget {
        var query = Google_Firestore_V1_StructuredQuery()
        var selector = Google_Firestore_V1_StructuredQuery.CollectionSelector()
        let parent: ResourcePath
        if let group = target.collectionGroup {
            parent = target.path
            selector.collectionID = group
            selector.allDescendants = true
        } else {
            guard target.path.isCollectionPath, let collection = target.path.lastSegment,
                let parentPath = target.path.parent
            else {
                throw FirestoreErrorCode(
                    .invalidArgument,
                    "The query path \(target.path) does not name a collection; query a collection "
                        + "(an odd number of segments) or use a documents target for a single document.")
            }
            parent = parentPath
            selector.collectionID = collection
        }
        query.from = [selector]

        let filters = target.filters.map(\.simplified).filter { !$0.isEmpty }
        if filters.count == 1 {
            query.where = try encodeFilter(filters[0])
        } else if filters.count > 1 {
            query.where = try encodeFilter(.and(filters))
        }
        query.orderBy = target.orderBy.map { order in
            Google_Firestore_V1_StructuredQuery.Order.with {
                $0.field = Self.fieldReference(order.field)
                $0.direction = order.descending ? .descending : .ascending
            }
        }
        if let limit = target.limit {
            guard let limit32 = Int32(exactly: limit), limit32 >= 0 else {
                throw FirestoreErrorCode(
                    .invalidArgument, "The query limit \(limit) is outside 0...\(Int32.max); use a smaller limit.")
            }
            query.limit = Google_Protobuf_Int32Value(limit32)
        }
        if let start = target.startAt {
            query.startAt = try encodeCursor(start.position, before: start.inclusive)
        }
        if let end = target.endAt {
            query.endAt = try encodeCursor(end.position, before: !end.inclusive)
        }

        var encoded = Google_Firestore_V1_Target.QueryTarget()
        encoded.parent = name(for: parent)
        encoded.structuredQuery = query
        return encoded
    }

    func encodeFilter(_ filter: Filter) throws(FirestoreErrorCode) -> Google_Firestore_V1_StructuredQuery.Filter {
        var proto = Google_Firestore_V1_StructuredQuery.Filter()
        switch filter {
        case .field(let field):
            if let unary = Self.unaryOperator(field) {
                proto.unaryFilter = Google_Firestore_V1_StructuredQuery.UnaryFilter.with {
                    $0.op = unary
                    $0.field = Self.fieldReference(field.field)
                }
            } else {
                var fieldFilter = Google_Firestore_V1_StructuredQuery.FieldFilter()
                fieldFilter.field = Self.fieldReference(field.field)
                fieldFilter.op = Self.encodeOperator(field.op)
                fieldFilter.value = try encode(field.value)
                proto.fieldFilter = fieldFilter
            }
        case .composite(let composite):
            var compositeFilter = Google_Firestore_V1_StructuredQuery.CompositeFilter()
            compositeFilter.op = composite.op == .and ? .and : .or
            compositeFilter.filters = try composite.filters.map { (child) throws(FirestoreErrorCode) in
                try encodeFilter(child)
            }
            proto.compositeFilter = compositeFilter
        }
        return proto
    }

    private func encodeCursor(_ position: [Value], before: Bool) throws(FirestoreErrorCode)
        -> Google_Firestore_V1_Cursor
    {
        var cursor = Google_Firestore_V1_Cursor()
        cursor.values = try position.map { (value) throws(FirestoreErrorCode) in try encode(value) }
        cursor.before = before
        return cursor
    }

    static func fieldReference(_ path: FieldPath) -> Google_Firestore_V1_StructuredQuery.FieldReference {
        Google_Firestore_V1_StructuredQuery.FieldReference.with { $0.fieldPath = path.canonicalString }
    }

    /// The unary form of `== null`, `== NaN`, `!= null` and `!= NaN`; nil for every other filter.
    private static func unaryOperator(
        _ filter: FieldFilter
    ) -> Google_Firestore_V1_StructuredQuery.UnaryFilter.Operator? {
        let isNull: Bool
        switch filter.value {
        case .null: isNull = true
        case .double(let double) where double.isNaN: isNull = false
        default: return nil
        }
        switch filter.op {
        case .equal: return isNull ? .isNull : .isNan
        case .notEqual: return isNull ? .isNotNull : .isNotNan
        default: return nil
        }
    }

    static func encodeOperator(_ op: FilterOperator) -> Google_Firestore_V1_StructuredQuery.FieldFilter.Operator {
        switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .equal: .equal
        case .notEqual: .notEqual
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .greaterThan
        case .arrayContains: .arrayContains
        case .arrayContainsAny: .arrayContainsAny
        case .in: .in
        case .notIn: .notIn
        }
    }
}
