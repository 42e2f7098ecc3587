import CairnModel
import CairnLocalStore

/// Queries, documents and values in the spec files' JSON forms (§6).
extension SpecParser {
    /// `{path, collectionGroup?, filters: [[field, op, value]], orderBys: [[field, "asc"|"desc"]], limit?,
    /// limitType?, startAt?, endAt?}`, or a bare path string.
    func query(_ v: SpecJSON) throws(SpecFormatError) -> CairnModel.Query {
        if let path = v.stringValue { return CairnModel.Query(path: try resourcePath(path)) }
        let path = try resourcePath(try string(try require(v["path"], "path")))
        let collectionGroup = v["collectionGroup"]?.stringValue
        var filters: [CairnModel.Filter] = []
        for (i, f) in try array(v["filters"] ?? .array([])).enumerated() {
            let parts = try at("filters[\(i)]").array(f)
            guard parts.count == 3 else { throw fail("a filter must be [field, op, value]") }
            let opName = try string(parts[1])
            guard let op = FilterOperator(rawValue: opName) else { throw fail("unknown filter operator \"\(opName)\"") }
            filters.append(.field(FieldFilter(try fieldPath(try string(parts[0])), op, try at("filters[\(i)]").value(parts[2]))))
        }
        var orderBys: [OrderBy] = []
        for (i, o) in try array(v["orderBys"] ?? .array([])).enumerated() {
            let parts = try at("orderBys[\(i)]").array(o)
            guard parts.count == 2, let direction = parts[1].stringValue, direction == "asc" || direction == "desc" else {
                throw fail("an order-by must be [field, \"asc\"|\"desc\"]")
            }
            orderBys.append(OrderBy(try fieldPath(try string(parts[0])), descending: direction == "desc"))
        }
        var limitType = CairnModel.Query.LimitType.first
        if let type = v["limitType"] {
            switch try string(type) {
            case "LimitToFirst": limitType = .first
            case "LimitToLast": limitType = .last
            default: throw fail("unknown limitType \(type)")
            }
        }
        return CairnModel.Query(
            path: path, collectionGroup: collectionGroup, filters: filters, explicitOrderBy: orderBys,
            limit: try v["limit"].map { l throws(SpecFormatError) in Int(try int(l)) }, limitType: limitType,
            startAt: try v["startAt"].map { b throws(SpecFormatError) in try at("startAt").bound(b) },
            endAt: try v["endAt"].map { b throws(SpecFormatError) in try at("endAt").bound(b) })
    }

    /// A cursor: `{position: [values], inclusive: bool}` (JS `Bound`), or a bare array of values (inclusive).
    private func bound(_ v: SpecJSON) throws(SpecFormatError) -> Bound {
        let position = v["position"] ?? v
        let values = try array(position).map { p throws(SpecFormatError) in try value(p) }
        return Bound(position: values, inclusive: v["inclusive"]?.boolValue ?? true)
    }

    /// `{key, version, createTime, value: {...} | null, options?: {hasLocalMutations, hasCommittedMutations}}`.
    func document(_ v: SpecJSON) throws(SpecFormatError) -> Document {
        let key = try documentKey(try require(v["key"], "key"))
        let version = try version(try require(v["version"], "version"))
        let options = v["options"]
        let local = options?["hasLocalMutations"]?.boolValue ?? false
        let committed = options?["hasCommittedMutations"]?.boolValue ?? false
        let contents = try require(v["value"], "value")
        if contents == .null {
            return Document(key: key, state: .noDocument, version: version, hasCommittedMutations: committed)
        }
        return Document(
            key: key, state: .found, version: version, data: try at("value").objectValue(contents),
            hasLocalMutations: local, hasCommittedMutations: !local && committed)
    }

    func objectValue(_ v: SpecJSON) throws(SpecFormatError) -> ObjectValue {
        guard let fields = v.objectFields else { throw fail("expected an object of fields, found \(v)") }
        var result: [String: Value] = [:]
        for (name, field) in fields { result[name] = try at(name).value(field) }
        return ObjectValue(result)
    }

    /// Document values hold only ints, strings, bools, arrays and maps (§6); doubles and null are accepted too.
    func value(_ v: SpecJSON) throws(SpecFormatError) -> Value {
        switch v {
        case .null: return .null
        case let .bool(b): return .boolean(b)
        case let .int(i): return .integer(i)
        case let .double(d): return .double(d)
        case let .string(s): return .string(s)
        case let .array(items): return .array(try items.map { item throws(SpecFormatError) in try value(item) })
        case .object: return .map(try objectValue(v))
        }
    }

    func resourcePath(_ string: String) throws(SpecFormatError) -> ResourcePath {
        if string.isEmpty { return .root }
        do {
            return try ResourcePath(parsing: string)
        } catch {
            throw fail("invalid path \"\(string)\": \(error)")
        }
    }
}
