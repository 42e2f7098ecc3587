/// The parameters of a query: its index, an optional start and end bound (a value and an optional key, inclusive
/// or exclusive), and an optional limit anchored at the start or the end. Built the way Firebase's API builds them:
///
/// ```swift
/// var params = QueryParams()
/// params = try params.orderedBy(.child(DatabasePath(keys: ["age"])))
/// params = try params.starting(after: .int(20))     // Firebase: startAt(20, "[MAX_NAME]"), exclusive
/// params = try params.limited(toFirst: 10)
/// params.wireObject   // ["sp": 20, "sn": "[MAX_NAME]", "sin": false, "l": 10, "vf": "l", "i": "age"]
/// ```
///
/// Queries that load all data (no bounds, no limit) listen as the default query at their path.
package struct QueryParams: Equatable, Sendable {
    /// One end of a range: an index value, an optional key, and whether the bound itself is excluded.
    package struct Bound: Hashable, Sendable {
        package var value: JSONValue
        package var name: String?
        package var isExclusive: Bool
    }

    package enum Anchor: String, Hashable, Sendable {
        case first = "l"
        case last = "r"
    }

    package private(set) var index: DatabaseIndex = .priority
    package private(set) var start: Bound?
    package private(set) var end: Bound?
    package private(set) var limit: Int?
    package private(set) var anchor: Anchor?
    /// Whether an orderBy was applied (a query is ordered once, even by priority).
    private var isOrdered = false

    package init() {}

    /// The largest limit Firebase accepts is 2^31 - 1.
    package static let maxLimit = Int(Int32.max)

    package var loadsAllData: Bool { start == nil && end == nil && limit == nil }
    package var isDefault: Bool { loadsAllData && index == .priority }
    package var hasLimit: Bool { limit != nil }

    /// True when a limit keeps the first children (limitToFirst, or a limit after a start bound).
    package var isViewFromLeft: Bool {
        if let anchor { return anchor == .first }
        return start != nil
    }

    /// Equal when they select the same data in the same order (whether orderByPriority was called explicitly does
    /// not matter).
    package static func == (a: QueryParams, b: QueryParams) -> Bool {
        a.index == b.index && a.start == b.start && a.end == b.end && a.limit == b.limit && a.anchor == b.anchor
    }

    // MARK: Building

    package func orderedBy(_ newIndex: DatabaseIndex) throws(DatabaseCoreError) -> QueryParams {
        if isOrdered {
            throw DatabaseCoreError(.invalidQuery, "the query is already ordered by \(index); order a query once")
        }
        if case .child(let path) = newIndex {
            if path.isEmpty || path.front == ".priority" || path.keys.contains(where: { $0.hasPrefix("$") || $0 == ".key" || $0 == ".value" }) {
                throw DatabaseCoreError(.invalidQuery, "queryOrdered(byChild:) needs a child path without '$', '.key', '.value' or a leading '.priority'; use the dedicated orderBy methods")
            }
        }
        var copy = self
        copy.index = newIndex
        copy.isOrdered = true
        if let start { try copy.validateBound(start) }
        if let end { try copy.validateBound(end) }
        return copy
    }

    package func limited(toFirst count: Int) throws(DatabaseCoreError) -> QueryParams {
        try limited(count, anchor: .first)
    }

    package func limited(toLast count: Int) throws(DatabaseCoreError) -> QueryParams {
        try limited(count, anchor: .last)
    }

    private func limited(_ count: Int, anchor newAnchor: Anchor) throws(DatabaseCoreError) -> QueryParams {
        if limit != nil {
            throw DatabaseCoreError(.invalidQuery, "the query already has a limit; a query takes one limitToFirst or limitToLast")
        }
        guard count > 0, count <= QueryParams.maxLimit else {
            throw DatabaseCoreError(.invalidQuery, "a limit must be between 1 and \(QueryParams.maxLimit), got \(count)")
        }
        var copy = self
        copy.limit = count
        copy.anchor = newAnchor
        return copy
    }

    package func starting(at value: JSONValue, childKey: String? = nil) throws(DatabaseCoreError) -> QueryParams {
        try setStart(Bound(value: value, name: childKey, isExclusive: false))
    }

    /// Firebase's startAfter: exclusive; without a key (and not ordered by key) the key is `[MAX_NAME]`.
    package func starting(after value: JSONValue, childKey: String? = nil) throws(DatabaseCoreError) -> QueryParams {
        let name = (index == .key || childKey != nil) ? childKey : KeyOrder.maxName
        return try setStart(Bound(value: value, name: name, isExclusive: true))
    }

    package func ending(at value: JSONValue, childKey: String? = nil) throws(DatabaseCoreError) -> QueryParams {
        try setEnd(Bound(value: value, name: childKey, isExclusive: false))
    }

    /// Firebase's endBefore: exclusive; without a key (and not ordered by key) the key is `[MIN_NAME]`.
    package func ending(before value: JSONValue, childKey: String? = nil) throws(DatabaseCoreError) -> QueryParams {
        let name = (index == .key || childKey != nil) ? childKey : KeyOrder.minName
        return try setEnd(Bound(value: value, name: name, isExclusive: true))
    }

    package func equal(to value: JSONValue, childKey: String? = nil) throws(DatabaseCoreError) -> QueryParams {
        if start != nil || end != nil {
            throw DatabaseCoreError(.invalidQuery, "equalTo cannot follow startAt/startAfter/endAt/endBefore")
        }
        return try starting(at: value, childKey: childKey).ending(at: value, childKey: childKey)
    }

    private func setStart(_ bound: Bound) throws(DatabaseCoreError) -> QueryParams {
        if start != nil {
            throw DatabaseCoreError(.invalidQuery, "the start of the query was already set (startAt, startAfter or equalTo)")
        }
        try validateBound(bound)
        var copy = self
        copy.start = bound
        return copy
    }

    private func setEnd(_ bound: Bound) throws(DatabaseCoreError) -> QueryParams {
        if end != nil {
            throw DatabaseCoreError(.invalidQuery, "the end of the query was already set (endAt, endBefore or equalTo)")
        }
        try validateBound(bound)
        var copy = self
        copy.end = bound
        return copy
    }

    private func validateBound(_ bound: Bound) throws(DatabaseCoreError) {
        switch bound.value {
        case .array, .object:
            throw DatabaseCoreError(.invalidQuery, "a query bound must be null, a boolean, a number or a string")
        case .double(let number) where !number.isFinite:
            throw DatabaseCoreError(.invalidQuery, "a query bound must be a finite number")
        default:
            break
        }
        if let name = bound.name, name != KeyOrder.minName, name != KeyOrder.maxName {
            try KeyValidation.validateKey(name)
        }
        switch index {
        case .key:
            guard case .string = bound.value else {
                throw DatabaseCoreError(.invalidQuery, "a query ordered by key takes string bounds")
            }
            if bound.name != nil {
                throw DatabaseCoreError(.invalidQuery, "a query ordered by key takes no child key in startAt/endAt/equalTo")
            }
        case .priority:
            if case .bool = bound.value {
                throw DatabaseCoreError(.invalidQuery, "a query ordered by priority takes null, number or string bounds")
            }
        default:
            break
        }
    }

    // MARK: Evaluating

    /// The start bound as an index post (the index's minimum when there is no start).
    package var startPost: NamedNode {
        guard let start else { return index.minPost }
        return index.makePost(Self.node(start.value), name: start.name ?? KeyOrder.minName)
    }

    /// The end bound as an index post (the index's maximum when there is no end).
    package var endPost: NamedNode {
        guard let end else { return index.maxPost }
        return index.makePost(Self.node(end.value), name: end.name ?? KeyOrder.maxName)
    }

    package var startIsInclusive: Bool { !(start?.isExclusive ?? false) }
    package var endIsInclusive: Bool { !(end?.isExclusive ?? false) }

    private static func node(_ value: JSONValue) -> Node {
        (try? Node(json: value)) ?? .empty
    }

    // MARK: Wire form

    /// The wire form (`sp`, `sn`, `sin`, `ep`, `en`, `ein`, `l`, `vf`, `i`), empty for the default query.
    package var wireObject: [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        if let start {
            object["sp"] = start.value
            if let name = start.name { object["sn"] = .string(name) }
            object["sin"] = .bool(!start.isExclusive)
        }
        if let end {
            object["ep"] = end.value
            if let name = end.name { object["en"] = .string(name) }
            object["ein"] = .bool(!end.isExclusive)
        }
        if let limit {
            object["l"] = .int(Int64(limit))
            object["vf"] = .string((anchor ?? (isViewFromLeft ? .first : .last)).rawValue)
        }
        if index != .priority { object["i"] = .string(index.description) }
        return object
    }

    /// A stable identifier of these parameters: `default`, or the wire form as JSON with sorted keys.
    package var identifier: String {
        let object = wireObject
        return object.isEmpty ? "default" : Node.canonicalJSON(.object(object))
    }
}
