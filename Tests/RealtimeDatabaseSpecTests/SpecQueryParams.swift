import CairnDatabaseCore

/// Builds query parameters from a spec step's `params` (`orderBy`, `orderByKey`, `orderByPriority`, `startAt`,
/// `startAfter`, `endAt`, `endBefore`, `equalTo` as `{index, name}`, `limitToFirst`, `limitToLast`, and the
/// expected `tag`, which the sync tree assigns itself). The order comes first, as Firebase's API permits any order.
enum SpecQueryParams {
    static func parse(_ value: JSONValue?, step: Int) throws -> QueryParams {
        guard let value else { return QueryParams() }
        guard let members = value.objectValue else { throw SpecFailure(step: step, message: "\"params\" must be an object") }
        guard members["tag"] != nil else { throw SpecFailure(step: step, message: "non-default queries must have a tag") }
        var params = QueryParams()
        do {
            if case .string(let child)? = members["orderBy"] {
                params = try params.orderedBy(.child(DatabasePath(unvalidated: child)))
            }
            if members["orderByKey"] != nil { params = try params.orderedBy(.key) }
            if members["orderByPriority"] != nil { params = try params.orderedBy(.priority) }
            for (name, bound) in members.sorted(by: { $0.key < $1.key }) {
                guard ["startAt", "startAfter", "endAt", "endBefore", "equalTo"].contains(name) else { continue }
                guard let fields = bound.objectValue else { throw SpecFailure(step: step, message: "\(name) must be an object") }
                let index = fields["index"] ?? .null
                var key: String?
                if case .string(let string)? = fields["name"] { key = string }
                switch name {
                case "startAt": params = try params.starting(at: index, childKey: key)
                case "startAfter": params = try params.starting(after: index, childKey: key)
                case "endAt": params = try params.ending(at: index, childKey: key)
                case "endBefore": params = try params.ending(before: index, childKey: key)
                default: params = try params.equal(to: index, childKey: key)
                }
            }
            if case .int(let count)? = members["limitToFirst"] { params = try params.limited(toFirst: Int(count)) }
            if case .int(let count)? = members["limitToLast"] { params = try params.limited(toLast: Int(count)) }
        } catch let error as DatabaseCoreError {
            throw SpecFailure(step: step, message: "query parameters rejected: \(error)")
        }
        let known: Set = ["tag", "orderBy", "orderByKey", "orderByPriority", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]
        if let unknown = members.keys.first(where: { !known.contains($0) }) {
            throw SpecFailure(step: step, message: "unsupported query parameter \(unknown)")
        }
        return params
    }
}
