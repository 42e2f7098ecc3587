/// Reading query parameters from their wire form (the server side of ``QueryParams/wireObject``). Both forms in
/// use are understood: the JS SDK's inclusive flags (`sin`, `ein`) and the iOS SDK's bounds without flags, where
/// startAfter is `sn: "[MAX_NAME]"` and endBefore `en: "[MIN_NAME]"`; a missing flag means inclusive.
///
/// ```swift
/// let params = try QueryParams(wireObject: ["i": .string("age"), "sp": .int(20), "l": .int(10), "vf": .string("l")])
/// params.limit   // 10
/// ```
extension QueryParams {
    package init(wireObject object: [String: JSONValue]) throws(DatabaseCoreError) {
        var params = QueryParams()
        if let index = object["i"] {
            guard case .string(let name) = index else {
                throw DatabaseCoreError(.invalidQuery, "the query index (i) must be a string")
            }
            params = try params.orderedBy(Self.index(named: name))
        }
        if let value = object["sp"] {
            let name = try Self.boundName(object["sn"], field: "sn")
            if try Self.isInclusive(object["sin"], field: "sin") {
                params = try params.starting(at: value, childKey: name)
            } else {
                params = try params.starting(after: value, childKey: name)
            }
        }
        if let value = object["ep"] {
            let name = try Self.boundName(object["en"], field: "en")
            if try Self.isInclusive(object["ein"], field: "ein") {
                params = try params.ending(at: value, childKey: name)
            } else {
                params = try params.ending(before: value, childKey: name)
            }
        }
        if let limitValue = object["l"] {
            guard case .int(let raw) = limitValue, raw > 0, raw <= Int64(QueryParams.maxLimit) else {
                throw DatabaseCoreError(.invalidQuery, "the query limit (l) must be an integer from 1 to 2^31 - 1")
            }
            switch object["vf"] {
            case .string("r")?: params = try params.limited(toLast: Int(raw))
            case .string("l")?, nil: params = try params.limited(toFirst: Int(raw))
            default: throw DatabaseCoreError(.invalidQuery, #"the query's view-from (vf) must be "l" or "r""#)
            }
        }
        self = params
    }

    private static func index(named name: String) throws(DatabaseCoreError) -> DatabaseIndex {
        switch name {
        case ".priority": return .priority
        case ".key": return .key
        case ".value": return .value
        default: return .child(try DatabasePath(name))
        }
    }

    private static func boundName(_ value: JSONValue?, field: String) throws(DatabaseCoreError) -> String? {
        switch value {
        case nil: return nil
        case .string(let name)?: return name
        default: throw DatabaseCoreError(.invalidQuery, "the query bound key (\(field)) must be a string")
        }
    }

    private static func isInclusive(_ value: JSONValue?, field: String) throws(DatabaseCoreError) -> Bool {
        switch value {
        case nil: return true
        case .bool(let flag)?: return flag
        default: throw DatabaseCoreError(.invalidQuery, "the query flag (\(field)) must be a boolean")
        }
    }
}
