import Foundation

/// A parsed JSON value. The spec files are read into this first, so that every field is type-checked with a
/// message naming the test and the field (JSONSerialization on Linux does not tell booleans from numbers).
enum SpecJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([SpecJSON])
    case object([String: SpecJSON])

    /// Parses JSON text (JSONSerialization, then typed: booleans are told from numbers by their boxed type).
    init(parsing data: Data) throws {
        self = try Self.convert(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    private static func convert(_ object: Any) throws -> SpecJSON {
        switch object {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .double(number.doubleValue)
            default: return .int(number.int64Value)
            }
        case let array as [Any]: return .array(try array.map(convert))
        case let dictionary as [String: Any]: return .object(try dictionary.mapValues(convert))
        default: throw SpecFormatError(context: "JSON", message: "unexpected JSON value \(object)")
        }
    }

    subscript(key: String) -> SpecJSON? {
        if case let .object(fields) = self { return fields[key] }
        return nil
    }

    var objectFields: [String: SpecJSON]? {
        if case let .object(fields) = self { return fields }
        return nil
    }

    var arrayValue: [SpecJSON]? {
        if case let .array(items) = self { return items }
        return nil
    }

    var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    var intValue: Int64? {
        if case let .int(value) = self { return value }
        return nil
    }

    var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }
}

/// A spec file that does not have the shape `../shared/reference/spec-tests.md` describes.
struct SpecFormatError: Error, CustomStringConvertible {
    /// Where: file, test and field.
    var context: String
    var message: String

    var description: String { "\(context): \(message)" }
}
