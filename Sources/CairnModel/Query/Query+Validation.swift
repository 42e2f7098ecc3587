/// The rules ``Query/filtered(by:)`` enforces. Every violation throws ``ModelError`` `invalidArgument`.
///
/// From the Firebase SDKs' client validation (iOS `api/query_core.cc`, JS `lite-api/query.ts`):
/// - `in`, `not-in` and `array-contains-any` need a non-empty array;
/// - at most one `!=` or `not-in` in a query, and `not-in` not with `in` or `array-contains-any`
///   (`ConflictingOps`);
/// - on `__name__`: no `array-contains(-any)`, and the value must be a reference (an array of references
///   for `in` / `not-in`).
///
/// From the backend, measured on the Cloud Firestore emulator (the SDKs leave these to the server, but a
/// query answered offline never reaches it):
/// - at most 30 values for `in` and `array-contains-any`, 10 for `not-in`;
/// - at most one `array-contains` or `array-contains-any` per disjunction (per term of the filters'
///   disjunctive normal form, counted as the emulator counts: see `checkArrayFiltersPerDisjunction`);
/// - no `not-in` in a query with an OR.
///
/// From earlier SDK versions (the current ones send such filters, which then match nothing on the server):
/// - `null` and `NaN` only with `==` and `!=`, not `<`, `<=`, `>`, `>=`.
extension Query {
    /// Where a document ID value appears, for the messages.
    enum DocumentIDContext {
        case filter
        case cursor
    }

    /// Validates `filter` (already simplified) against the rules above and the query's existing filters.
    func validateNewFilter(_ filter: Filter) throws(ModelError) {
        var existing = filters.flatMap(\.flattenedFilters)
        for fieldFilter in filter.flattenedFilters {
            try Self.validateFieldFilter(fieldFilter)
            try Self.checkConflicts(fieldFilter, with: existing)
            existing.append(fieldFilter)
        }
        let all = filters + [filter]
        try Self.checkArrayFiltersPerDisjunction(all)
        if existing.contains(where: { $0.op == .notIn }) && all.contains(where: \.containsDisjunction) {
            throw .invalidArgument(
                "Invalid Query. You cannot use 'notIn' filters with 'or' filters; "
                    + "rewrite the disjunction or filter the excluded values yourself.")
        }
    }

    private static func validateFieldFilter(_ filter: FieldFilter) throws(ModelError) {
        let op = filter.op
        if filter.field.isDocumentKey {
            if op.isArrayOperator {
                throw .invalidArgument(
                    "Invalid query. You can't perform '\(op.apiName)' queries on document ID since document IDs "
                        + "are not arrays.")
            }
            if op == .in || op == .notIn {
                let elements = try requireValueArray(filter)
                for element in elements { try requireReference(element, context: .filter) }
            } else {
                try requireReference(filter.value, context: .filter)
            }
            return
        }
        if op.takesArrayOfValues {
            _ = try requireValueArray(filter)
        }
        if op.isRange && (filter.value.isNull || filter.value.isNaN) {
            let (name, literal) = filter.value.isNull ? ("Null", "null") : ("NaN", "NaN")
            throw .invalidArgument(
                "Invalid Query. \(name) supports only equality comparisons; use isEqualTo or isNotEqualTo with "
                    + "\(literal), not \(op.apiName).")
        }
    }

    /// The elements of an `in` / `not-in` / `array-contains-any` value: a non-empty array within the backend's
    /// size limit.
    private static func requireValueArray(_ filter: FieldFilter) throws(ModelError) -> [Value] {
        guard let elements = filter.value.arrayElements, !elements.isEmpty else {
            throw .invalidArgument(
                "Invalid Query. A non-empty array is required for '\(filter.op.apiName)' filters.")
        }
        if let maximum = filter.op.maximumValueCount, elements.count > maximum {
            throw .invalidArgument(
                "Invalid Query. '\(filter.op.apiName)' filters support at most \(maximum) values in the array, "
                    + "but \(elements.count) were given; split the query into several.")
        }
        return elements
    }

    /// A value for `__name__` must be a reference. A string is a document ID the caller should have resolved
    /// with ``documentIDFilterValue(_:database:)`` or ``documentIDCursorValue(_:database:)``.
    static func requireReference(_ value: Value, context: DocumentIDContext) throws(ModelError) {
        switch value {
        case .reference:
            return
        case .string(let documentID):
            let resolver = context == .filter ? "documentIDFilterValue" : "documentIDCursorValue"
            throw .invalidArgument(
                "Invalid query. A document ID value must be a reference; resolve the document ID "
                    + "'\(documentID)' with Query.\(resolver)(_:database:) first.")
        default:
            switch context {
            case .filter:
                throw .invalidArgument(
                    "Invalid query. When querying by document ID you must provide a valid string or "
                        + "DocumentReference, but it was of type: \(value.typeOrder).")
            case .cursor:
                throw .invalidArgument(
                    "Invalid query. Expected a string for the document ID, but it was of type: "
                        + "\(value.typeOrder).")
            }
        }
    }

    /// The SDKs' `ConflictingOps`: operators that cannot share a query with `filter`'s.
    private static func checkConflicts(_ filter: FieldFilter, with existing: [FieldFilter]) throws(ModelError) {
        let conflicting: [FilterOperator] =
            switch filter.op {
            case .notEqual: [.notEqual, .notIn]
            case .arrayContainsAny, .in: [.notIn]
            case .notIn: [.arrayContainsAny, .in, .notIn, .notEqual]
            default: []
            }
        guard let clash = existing.first(where: { conflicting.contains($0.op) }) else { return }
        if clash.op == filter.op {
            throw .invalidArgument("Invalid Query. You cannot use more than one '\(filter.op.apiName)' filter.")
        }
        throw .invalidArgument(
            "Invalid Query. You cannot use '\(filter.op.apiName)' filters with '\(clash.op.apiName)' filters.")
    }

    /// Throws when a term of the filters' disjunctive normal form could hold two array filters
    /// (`array-contains`, `array-contains-any`), counted as the emulator counts them: identical sub-filters of
    /// one composite count once (in any order), but the same filter reached through different sub-filters
    /// counts each time (`a array-contains 1 AND (a array-contains 1 OR b == 1)` is rejected).
    private static func checkArrayFiltersPerDisjunction(_ filters: [Filter]) throws(ModelError) {
        guard arrayFilterCount(of: .and(filters)).count > 1 else { return }
        let ops = Set(filters.flatMap(\.flattenedFilters).map(\.op).filter(\.isArrayOperator))
        let message =
            ops.count == 1
            ? "You cannot use more than one '\(ops.first!.apiName)' filter"
            : "You cannot use 'arrayContainsAny' filters with 'arrayContains' filters"
        throw .invalidArgument(
            "Invalid Query. \(message) in the same disjunction; Firestore allows one 'arrayContains' or "
                + "'arrayContainsAny' filter per OR branch.")
    }

    /// The most array filters one normal-form term of `filter` holds, and a key that is equal for filters equal
    /// up to the order of composite sub-filters.
    private static func arrayFilterCount(of filter: Filter) -> (count: Int, key: String) {
        switch filter {
        case .field(let fieldFilter):
            return (fieldFilter.op.isArrayOperator ? 1 : 0, fieldFilter.canonicalID)
        case .composite(let composite):
            var children: [String: Int] = [:]
            for child in composite.filters {
                let (count, key) = arrayFilterCount(of: child)
                children[key] = count
            }
            let count =
                composite.isConjunction ? children.values.reduce(0, +) : (children.values.max() ?? 0)
            return (count, "\(composite.op.rawValue)(\(children.keys.sorted().joined(separator: ",")))")
        }
    }
}
