import CairnLocalStore
import CairnModel

/// Bundled queries: a `StructuredQuery` in the REST encoding, read into a `Query` (Firebase's
/// `BundleSerializer::DecodeBundledQuery`). Supported: `from` (collection or collection group), `where` with
/// field filters and `AND`/`OR` composites, `orderBy`, `limit` and the bundle's `limitType`.
extension BundleJSONDecoder {
    package static let operators: [String: FilterOperator] = [
        "LESS_THAN": .lessThan, "LESS_THAN_OR_EQUAL": .lessThanOrEqual, "EQUAL": .equal, "NOT_EQUAL": .notEqual,
        "GREATER_THAN_OR_EQUAL": .greaterThanOrEqual, "GREATER_THAN": .greaterThan, "ARRAY_CONTAINS": .arrayContains,
        "ARRAY_CONTAINS_ANY": .arrayContainsAny, "IN": .in, "NOT_IN": .notIn,
    ]

    package func namedQuery(_ json: [String: Any]) throws(FirestoreErrorCode) -> NamedQuery {
        let name = try string(json["name"], "namedQuery.name")
        let readTime = try timestamp(json["readTime"], "namedQuery.readTime")
        guard let bundled = json["bundledQuery"] as? [String: Any],
            let structured = bundled["structuredQuery"] as? [String: Any]
        else { throw LoadedBundle.malformed("the named query \(name) has no bundledQuery.structuredQuery") }
        let parent = try resourcePath(try string(bundled["parent"], "bundledQuery.parent"), "bundledQuery.parent")
        guard structured["startAt"] == nil, structured["endAt"] == nil else {
            throw FirestoreErrorCode(
                .unimplemented, "The named query \(name) uses cursors, which bundled queries do not support yet.")
        }
        guard let from = (structured["from"] as? [[String: Any]])?.first, from.count >= 1 else {
            throw LoadedBundle.malformed("the named query \(name) has no from clause")
        }
        let collection = try string(from["collectionId"], "from.collectionId")
        let path = from["allDescendants"] as? Bool == true ? parent : parent.appending(collection)
        let group = from["allDescendants"] as? Bool == true ? collection : nil
        var filters: [Filter] = []
        if let filter = structured["where"] as? [String: Any] {
            let decoded = try self.filter(filter)
            if case .composite(let composite) = decoded, composite.op == .and {
                filters = composite.filters
            } else {
                filters = [decoded]
            }
        }
        var orderBy: [OrderBy] = []
        for order in structured["orderBy"] as? [[String: Any]] ?? [] {
            let field = try fieldPath((order["field"] as? [String: Any])?["fieldPath"])
            orderBy.append(OrderBy(field, descending: order["direction"] as? String == "DESCENDING"))
        }
        var limit: Int?
        if let value = structured["limit"] {
            limit = (value as? Int) ?? ((value as? [String: Any])?["value"] as? Int)
            guard limit != nil else { throw LoadedBundle.malformed("the named query \(name) has a bad limit") }
        }
        let limitType: Query.LimitType = bundled["limitType"] as? String == "LAST" ? .last : .first
        let query = Query(
            path: path, collectionGroup: group, filters: filters, explicitOrderBy: orderBy, limit: limit,
            limitType: limitType, startAt: nil, endAt: nil)
        return NamedQuery(name: name, query: query, readTime: readTime)
    }

    private func filter(_ json: [String: Any]) throws(FirestoreErrorCode) -> Filter {
        if let field = json["fieldFilter"] as? [String: Any] {
            let path = try fieldPath((field["field"] as? [String: Any])?["fieldPath"])
            guard let op = Self.operators[field["op"] as? String ?? ""], let operand = field["value"] else {
                throw LoadedBundle.malformed("a field filter has an unknown operator or no value")
            }
            return .field(FieldFilter(path, op, try value(operand)))
        }
        if let composite = json["compositeFilter"] as? [String: Any] {
            var filters: [Filter] = []
            for element in composite["filters"] as? [[String: Any]] ?? [] { filters.append(try filter(element)) }
            return composite["op"] as? String == "OR" ? .or(filters) : .and(filters)
        }
        if let unary = json["unaryFilter"] as? [String: Any] {
            let path = try fieldPath((unary["field"] as? [String: Any])?["fieldPath"])
            switch unary["op"] as? String {
            case "IS_NULL": return .field(FieldFilter(path, .equal, .null))
            case "IS_NOT_NULL": return .field(FieldFilter(path, .notEqual, .null))
            case "IS_NAN": return .field(FieldFilter(path, .equal, .double(.nan)))
            case "IS_NOT_NAN": return .field(FieldFilter(path, .notEqual, .double(.nan)))
            default: throw LoadedBundle.malformed("a unary filter has an unknown operator")
            }
        }
        throw LoadedBundle.malformed("a filter is none of fieldFilter, compositeFilter and unaryFilter")
    }

    private func fieldPath(_ value: Any?) throws(FirestoreErrorCode) -> FieldPath {
        let text = try string(value, "fieldPath")
        do {
            return try FieldPath(parsingServerFormat: text)
        } catch {
            throw LoadedBundle.malformed("the field path \"\(text)\" is not valid")
        }
    }
}
