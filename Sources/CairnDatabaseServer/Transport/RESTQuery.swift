import CairnDatabaseCore
import Foundation

/// The REST API's query parameters as Firebase documents them: `orderBy` (a JSON string: `"$key"`, `"$value"`,
/// `"$priority"` or a child path), `startAt`, `startAfter`, `endAt`, `endBefore`, `equalTo` (JSON values),
/// `limitToFirst`, `limitToLast` (integers). Every filter needs an `orderBy`.
///
/// ```swift
/// let params = try RESTQuery.params(["orderBy": "\"score\"", "limitToLast": "2"])
/// ```
enum RESTQuery {
    static let filterNames = ["startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]

    static func params(_ query: [String: String]) throws(ServerError) -> QueryParams {
        guard let orderBy = query["orderBy"] else {
            if let name = filterNames.first(where: { query[$0] != nil }) {
                throw ServerError(.invalidQuery, "orderBy must be defined when other query parameters are defined (got \(name))")
            }
            return QueryParams()
        }
        do {
            guard case .string(let order) = try json(orderBy, "orderBy") else {
                throw ServerError(.invalidQuery, "orderBy must be a JSON string such as \"$key\" or \"height\"")
            }
            var params = QueryParams()
            switch order {
            case "$key": params = try params.orderedBy(.key)
            case "$value": params = try params.orderedBy(.value)
            case "$priority": params = try params.orderedBy(.priority)
            default: params = try params.orderedBy(.child(DatabasePath(order)))
            }
            if let value = query["equalTo"] { params = try params.equal(to: try json(value, "equalTo")) }
            if let value = query["startAt"] { params = try params.starting(at: try json(value, "startAt")) }
            if let value = query["startAfter"] { params = try params.starting(after: try json(value, "startAfter")) }
            if let value = query["endAt"] { params = try params.ending(at: try json(value, "endAt")) }
            if let value = query["endBefore"] { params = try params.ending(before: try json(value, "endBefore")) }
            if let value = query["limitToFirst"] { params = try params.limited(toFirst: try limit(value, "limitToFirst")) }
            if let value = query["limitToLast"] { params = try params.limited(toLast: try limit(value, "limitToLast")) }
            return params
        } catch let error as ServerError {
            throw error
        } catch let error as DatabaseCoreError {
            throw ServerError(.invalidQuery, error.message)
        } catch {
            throw ServerError(.invalidQuery, "\(error)")
        }
    }

    static func json(_ text: String, _ name: String) throws(ServerError) -> JSONValue {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw ServerError(.invalidQuery, "\(name) must be JSON (a string in double quotes, a number, true, false or null), got \(text.prefix(64))")
        }
        return value
    }

    private static func limit(_ text: String, _ name: String) throws(ServerError) -> Int {
        guard let count = Int(text), count > 0, count <= QueryParams.maxLimit else {
            throw ServerError(.invalidQuery, "\(name) must be an integer from 1 to \(QueryParams.maxLimit), got \(text.prefix(32))")
        }
        return count
    }
}
