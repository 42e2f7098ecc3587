import CairnModel
import Foundation

/// Turns the Swift and Foundation values of user data (`[String: Any]` and what it holds) into
/// ``UserValue``s, which CairnModel's `MutationBuilder` / `UserDataParser` then check and turn into mutations
/// (Firebase's `FSTUserDataReader` does both steps at once; its messages are kept).
///
/// Supported, as in Firebase: `NSNull` and `nil` optionals, `Bool`, integers (any width up to `Int64.max`),
/// `Float` / `Double`, `NSNumber`, `String`, `Data`, `Date` and ``Timestamp``, ``GeoPoint``, ``VectorValue``,
/// ``DocumentReference``, arrays, string-keyed dictionaries, and ``FieldValue`` sentinels. Anything else is
/// `invalidArgument` "Unsupported type: T (found in field a.b)".
///
/// The reader recurses into maps and arrays only down to Firestore's depth limit
/// (`DocumentValidation.maxDepth`, 20): deeper input is `invalidArgument` at once, so no input, however deep,
/// can exhaust the stack.
///
/// ```swift
/// try UserDataReader.document(["name": "Ada", "born": Date(), "tags": ["math"]])
/// try UserDataReader.document(["bad": URL(string: "https://x")!])
/// // invalidArgument: Unsupported type: URL (found in field bad)
/// ```
enum UserDataReader {
    /// The fields of a `setData` / merge: the keys are field names.
    static func document(_ data: [String: Any]) throws(FirestoreErrorCode) -> [String: UserValue] {
        var result: [String: UserValue] = [:]
        for (key, value) in data {
            result[key] = try userValue(value, path: [key], depth: 1)
        }
        return result
    }

    /// The fields of an `updateData`: keys are dotted strings or ``FieldPath``s.
    static func updateFields(_ fields: [AnyHashable: Any]) throws(FirestoreErrorCode) -> [CairnModel.FieldPath: UserValue] {
        var result: [CairnModel.FieldPath: UserValue] = [:]
        for (key, value) in fields {
            let path: CairnModel.FieldPath
            if let string = key.base as? String {
                path = try FieldPath.dotted(string).get()
            } else if let fieldPath = key.base as? FieldPath {
                path = try fieldPath.parsed.get()
            } else {
                throw FirestoreErrorCode(
                    .invalidArgument,
                    "Dictionary keys in updateData: must be Strings or FieldPaths, but one is "
                        + "\(type(of: key.base)).")
            }
            result[path] = try userValue(value, path: path.segments, depth: path.count)
        }
        return result
    }

    /// One value at `path` (`nil` inside arrays, whose elements Firebase's messages do not locate), where a map
    /// or array would sit at `depth` (a top-level field's map is at depth 1).
    static func userValue(_ value: Any, path: [String]?, depth: Int = 0) throws(FirestoreErrorCode) -> UserValue {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return try .value(numberValue(number, path: path))
        }
        switch value {
        // Containers first: on Linux a cast of a dictionary or array to a class type (NSNull, Timestamp, ...)
        // bridges the whole value to Foundation, recursively, which deep input would overflow.
        case let dictionary as [String: Any]:
            try checkDepth(depth, path: path)
            var fields: [String: UserValue] = [:]
            for (key, element) in dictionary {
                fields[key] = try userValue(element, path: path.map { $0 + [key] }, depth: depth + 1)
            }
            return .map(fields)
        case let array as [Any]:
            try checkDepth(depth, path: path)
            return .array(try array.map { element throws(FirestoreErrorCode) in
                try userValue(element, path: nil, depth: depth + 1)
            })
        case is NSNull:
            return .value(.null)
        case let bool as Bool:
            return .value(.boolean(bool))
        case let int as Int:
            return .value(.integer(Int64(int)))
        case let int as Int64:
            return .value(.integer(int))
        case let int as Int32:
            return .value(.integer(Int64(int)))
        case let int as Int16:
            return .value(.integer(Int64(int)))
        case let int as Int8:
            return .value(.integer(Int64(int)))
        case let uint as UInt:
            return try .value(unsignedValue(UInt64(uint), path: path))
        case let uint as UInt64:
            return try .value(unsignedValue(uint, path: path))
        case let uint as UInt32:
            return .value(.integer(Int64(uint)))
        case let uint as UInt16:
            return .value(.integer(Int64(uint)))
        case let uint as UInt8:
            return .value(.integer(Int64(uint)))
        case let double as Double:
            return .value(.double(double))
        case let float as Float:
            return .value(.double(Double(float)))
        case let string as String:
            return .value(.string(string))
        case let data as Data:
            return .value(.bytes([UInt8](data)))
        case let date as Date:
            return try .value(timestampValue(Timestamp(date: date), path: path))
        case let timestamp as Timestamp:
            return try .value(timestampValue(timestamp, path: path))
        case let point as GeoPoint:
            if let problem = point.validationProblem {
                throw invalid("Invalid data. \(problem)", path: path)
            }
            return .value(.geoPoint(point.model))
        case let vector as VectorValue:
            return .vector(vector.array)
        case let reference as DocumentReference:
            return .value(.reference(reference.firestore.databaseID, try reference.key.get()))
        case let fieldValue as FieldValue:
            return try fieldValue.sentinel.get()
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return .value(.null) }
                return try userValue(wrapped, path: path, depth: depth)
            }
            throw invalid("Unsupported type: \(type(of: value))", path: path)
        }
    }

    /// Stops the walk at a map or array deeper than Firestore allows, before recursing into it.
    private static func checkDepth(_ depth: Int, path: [String]?) throws(FirestoreErrorCode) {
        if let problem = DocumentValidation.depthProblem(depth) {
            throw invalid("Invalid data. \(problem)", path: path)
        }
    }

    /// An `NSNumber` by its stored type, as Firebase reads `objCType`.
    private static func numberValue(_ number: NSNumber, path: [String]?) throws(FirestoreErrorCode) -> Value {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "c"), UInt8(ascii: "B"):
            return .boolean(number.boolValue)
        case UInt8(ascii: "f"), UInt8(ascii: "d"):
            return .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"):
            return try unsignedValue(number.uint64Value, path: path)
        default:
            return .integer(number.int64Value)
        }
    }

    private static func unsignedValue(_ value: UInt64, path: [String]?) throws(FirestoreErrorCode) -> Value {
        guard value <= UInt64(Int64.max) else {
            throw invalid(
                "Invalid data. The integer \(value) is too large: Firestore stores 64-bit signed integers "
                    + "(at most \(Int64.max)); store it as a string or a double", path: path)
        }
        return .integer(Int64(value))
    }

    private static func timestampValue(_ timestamp: Timestamp, path: [String]?) throws(FirestoreErrorCode) -> Value {
        if let problem = timestamp.validationProblem {
            throw invalid("Invalid data. \(problem)", path: path)
        }
        return .timestamp(timestamp.model)
    }

    /// `message` followed by Firebase's ` (found in field a.b)` when the value has a field path.
    static func invalid(_ message: String, path: [String]?) -> FirestoreErrorCode {
        guard let path, !path.isEmpty else { return FirestoreErrorCode(.invalidArgument, message) }
        let field = CairnModel.FieldPath(segments: path).canonicalString
        return FirestoreErrorCode(.invalidArgument, "\(message) (found in field \(field))")
    }
}
