import CairnCore
import CairnModel
import SwiftProtobuf

/// Queries back: a parent resource name and `StructuredQuery` to a CairnModel ``QueryTarget`` (the inverse of
/// ``FirestoreSerializer/encodeQueryTarget(_:)``). A top-level composite AND becomes the target's filter list, the
/// unary filters become `==`/`!=` with null or NaN, and `before` on the end cursor means an exclusive bound.
extension FirestoreSerializer {
    package func decodeQueryTarget(
        _ proto: Google_Firestore_V1_Target.QueryTarget
    ) throws(FirestoreErrorCode) -> QueryTarget {
        let parent = try decodePath(proto.parent)
        let query = proto.structuredQuery
        guard query.from.count == 1, let selector = query.from.first, !selector.collectionID.isEmpty else {
            throw Self.malformed("a structured query must read exactly one collection id, not \(query.from.count)")
        }
        let path = selector.allDescendants ? parent : parent.appending(selector.collectionID)
        let group = selector.allDescendants ? selector.collectionID : nil

        var filters: [Filter] = []
        if query.hasWhere {
            let filter = try decodeFilter(query.where)
            if case .composite(let composite) = filter, composite.op == .and {
                filters = composite.filters
            } else {
                filters = [filter]
            }
        }
        let orderBy = try query.orderBy.map { (order) throws(FirestoreErrorCode) in
            OrderBy(try Self.decodeFieldPath(order.field), descending: order.direction == .descending)
        }
        let startAt =
            query.hasStartAt
            ? Bound(position: try decodeCursorValues(query.startAt), inclusive: query.startAt.before) : nil
        let endAt =
            query.hasEndAt
            ? Bound(position: try decodeCursorValues(query.endAt), inclusive: !query.endAt.before) : nil
        return QueryTarget(
            path: path, collectionGroup: group, filters: filters, orderBy: orderBy,
            limit: query.hasLimit ? Int(query.limit.value) : nil, startAt: startAt, endAt: endAt)
    }

    func decodeFilter(_ proto: Google_Firestore_V1_StructuredQuery.Filter) throws(FirestoreErrorCode) -> Filter {
        switch proto.filterType {
        case .compositeFilter(let composite):
            let op: CompositeFilter.Operator
            switch composite.op {
            case .and: op = .and
            case .or: op = .or
            default: throw Self.malformed("a composite filter has the unknown operator \(composite.op.rawValue)")
            }
            let children = try composite.filters.map { (child) throws(FirestoreErrorCode) in try decodeFilter(child) }
            return .composite(CompositeFilter(op, children))
        case .fieldFilter(let field):
            let path = try Self.decodeFieldPath(field.field)
            return .field(FieldFilter(path, try Self.decodeOperator(field.op), try decode(field.value)))
        case .unaryFilter(let unary):
            let path = try Self.decodeFieldPath(unary.field)
            switch unary.op {
            case .isNull: return .field(FieldFilter(path, .equal, .null))
            case .isNan: return .field(FieldFilter(path, .equal, .double(.nan)))
            case .isNotNull: return .field(FieldFilter(path, .notEqual, .null))
            case .isNotNan: return .field(FieldFilter(path, .notEqual, .double(.nan)))
            default: throw Self.malformed("a unary filter has the unknown operator \(unary.op.rawValue)")
            }
        case nil:
            throw Self.malformed("a filter has no filter type")
        }
    }

    private func decodeCursorValues(_ cursor: Google_Firestore_V1_Cursor) throws(FirestoreErrorCode) -> [Value] {
        try cursor.values.map { (value) throws(FirestoreErrorCode) in try decode(value) }
    }

    static func decodeFieldPath(
        _ reference: Google_Firestore_V1_StructuredQuery.FieldReference
    ) throws(FirestoreErrorCode) -> FieldPath {
        do {
            return try FieldPath(parsingServerFormat: reference.fieldPath)
        } catch {
            throw malformed("the field path \"\(reference.fieldPath)\" does not parse: \(error.message)")
        }
    }

    static func decodeOperator(
        _ op: Google_Firestore_V1_StructuredQuery.FieldFilter.Operator
    ) throws(FirestoreErrorCode) -> FilterOperator {
        switch op {
        case .lessThan: return .lessThan
        case .lessThanOrEqual: return .lessThanOrEqual
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .greaterThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .greaterThan
        case .arrayContains: return .arrayContains
        case .arrayContainsAny: return .arrayContainsAny
        case .in: return .in
        case .notIn: return .notIn
        default: throw malformed("a field filter has the unknown operator \(op.rawValue)")
        }
    }
}
