import CairnDatabaseCore
import Foundation

/// Converting between the values the API takes and gives (`String`, numbers, `Bool`, `[String: Any]`, `[Any]`,
/// `NSNull`, `NSNumber`, `ServerValue` placeholders) and the core's JSON. Anything else is an error naming its type.
enum DatabaseValues {
    static func json(_ value: Any?, at path: String) throws(DatabaseCoreError) -> JSONValue {
        guard let value else { return .null }
        switch value {
        case is NSNull: return .null
        case let number as NSNumber where type(of: value) is NSNumber.Type: return numberJSON(number)
        case let string as String: return .string(string)
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let number as Int: return .int(Int64(number))
        case let number as Int64: return .int(number)
        case let number as Int32: return .int(Int64(number))
        case let number as UInt32: return .int(Int64(number))
        case let number as Double: return .double(number)
        case let number as Float: return .double(Double(number))
        case let object as [String: Any]: return try objectJSON(object.map { ($0.key, $0.value) }, at: path)
        case let object as [AnyHashable: Any]:
            var members: [(String, Any)] = []
            for (key, member) in object {
                guard let name = key.base as? String else {
                    throw DatabaseCoreError(.invalidData, "the object at \(path) has a key that is not a string (\(key))")
                }
                members.append((name, member))
            }
            return try objectJSON(members, at: path)
        case let array as [Any]:
            var elements: [JSONValue] = []
            for (offset, element) in array.enumerated() { elements.append(try json(element, at: "\(path)/\(offset)")) }
            return .array(elements)
        default:
            throw DatabaseCoreError(.invalidData, "cannot store an object of type \(type(of: value)) at \(path); use a String, a number, a Bool, an array or a dictionary")
        }
    }

    private static func numberJSON(_ number: NSNumber) -> JSONValue {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .double(number.doubleValue)
        default: return .int(number.int64Value)
        }
    }

    private static func objectJSON(_ members: [(String, Any)], at path: String) throws(DatabaseCoreError) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (key, member) in members { object[key] = try json(member, at: path == "/" ? "/\(key)" : "\(path)/\(key)") }
        return .object(object)
    }

    /// The node for a value the user writes (keys validated, `.priority`/`.value`/`.sv` understood).
    static func node(_ value: Any?, at path: DatabasePath) throws(DatabaseCoreError) -> Node {
        try Node(json: json(value, at: path.description))
    }

    /// A query bound: only `nil`, strings, numbers and booleans.
    static func bound(_ value: Any?, method: String) throws(DatabaseCoreError) -> JSONValue {
        let converted = try json(value, at: "/")
        switch converted {
        case .null, .bool, .int, .double, .string: return converted
        default:
            throw DatabaseCoreError(.invalidQuery, "Cannot pass a value of type \(type(of: value!)) to \(method): use a String, a number, a Bool or nil")
        }
    }

    /// The API's form of a JSON value: `String`, `Int`, `Double`, `Bool`, `[String: Any]`, `[Any]` (gaps are
    /// `NSNull`), nil for null.
    static func any(_ json: JSONValue) -> Any? {
        switch json {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .double(let number): return number
        case .string(let string): return string
        case .array(let elements): return elements.map { any($0) ?? NSNull() }
        case .object(let members): return members.mapValues { any($0) ?? NSNull() }
        }
    }
}
