import CairnModel
import Foundation

/// Reads the Firestore REST encoding of values, timestamps, document names and structured queries, as bundles
/// carry them (Firebase's `BundleSerializer`).
package struct BundleJSONDecoder {
    package let databaseID: DatabaseID

    package func string(_ value: Any?, _ field: String) throws(FirestoreErrorCode) -> String {
        guard let string = value as? String else { throw LoadedBundle.malformed("\(field) must be a string") }
        return string
    }

    /// A non-negative integer, as a JSON number or (protobuf's JSON form of 64-bit integers) a decimal string;
    /// 0 when absent, as Firebase reads the metadata's totals.
    package func count(_ value: Any?, _ field: String) throws(FirestoreErrorCode) -> Int {
        guard let value else { return 0 }
        if let number = value as? NSNumber, let count = Int(exactly: number.doubleValue), count >= 0 {
            return count
        }
        if let text = value as? String, let count = Int(text), count >= 0 { return count }
        throw LoadedBundle.malformed("\(field) must be a non-negative integer, not \(value)")
    }

    /// A time: an RFC 3339 string such as `1970-01-01T00:00:00.000500000Z` (or with a `+hh:mm` offset), or a
    /// protobuf `Timestamp` object `{"seconds": "1700000000", "nanos": 5}`, as Firebase accepts both.
    package func timestamp(_ value: Any?, _ field: String) throws(FirestoreErrorCode) -> Timestamp {
        if let object = value as? [String: Any] { return try timestamp(object: object, field) }
        let text = try string(value, field)
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var result: Int64 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                result = result * 10 + Int64(byte - 48)
            }
            return result
        }
        guard bytes.count >= 20, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { throw LoadedBundle.malformed("\(field) \"\(text)\" is not an RFC 3339 time") }
        var index = 19
        var nanos: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if digits < 9 { nanos = nanos * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            for _ in digits..<max(digits, 9) { nanos *= 10 }
        }
        var offset: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            guard let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6) else {
                throw LoadedBundle.malformed("\(field) \"\(text)\" has a bad time-zone offset")
            }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        } else if index >= bytes.count || (bytes[index] != UInt8(ascii: "Z") && bytes[index] != UInt8(ascii: "z")) {
            throw LoadedBundle.malformed("\(field) \"\(text)\" has no time zone")
        }
        let seconds = Self.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Timestamp(seconds: seconds - offset, nanoseconds: Int32(nanos))
    }

    private func timestamp(object: [String: Any], _ field: String) throws(FirestoreErrorCode) -> Timestamp {
        func integer(_ value: Any?) -> Int64? {
            guard let value else { return 0 }
            if let text = value as? String { return Int64(text) }
            guard let number = value as? NSNumber else { return nil }
            return Int64(exactly: number.doubleValue)
        }
        guard let seconds = integer(object["seconds"]), let nanos = integer(object["nanos"]), (0..<1_000_000_000).contains(nanos),
            (-62_135_596_800...253_402_300_799).contains(seconds)  // 0001-01-01 to 9999-12-31, Firestore's range
        else { throw LoadedBundle.malformed("\(field) is not a valid timestamp object {seconds, nanos}") }
        return Timestamp(seconds: seconds, nanoseconds: Int32(nanos))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `projects/<p>/databases/<d>/documents/<path>` to the resource path after `documents`.
    package func resourcePath(_ name: String, _ field: String) throws(FirestoreErrorCode) -> ResourcePath {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count >= 5, segments[0] == "projects", segments[2] == "databases", segments[4] == "documents" else {
            throw LoadedBundle.malformed("\(field) \"\(name)\" is not a document resource name")
        }
        guard segments[1] == databaseID.projectID, segments[3] == databaseID.databaseID else {
            throw LoadedBundle.malformed(
                "\(field) \"\(name)\" belongs to another database than projects/\(databaseID.projectID)/databases/\(databaseID.databaseID)")
        }
        return ResourcePath(segments: Array(segments.dropFirst(5)))
    }

    package func documentKey(_ value: Any?, _ field: String) throws(FirestoreErrorCode) -> DocumentKey {
        let path = try resourcePath(try string(value, field), field)
        guard path.isDocumentPath else { throw LoadedBundle.malformed("\(field) \(path) does not name a document") }
        return DocumentKey(path: path)
    }

    package func fields(_ value: Any?) throws(FirestoreErrorCode) -> ObjectValue {
        guard let value else { return ObjectValue() }
        guard let fields = value as? [String: Any] else { throw LoadedBundle.malformed("fields must be an object") }
        var result: [String: Value] = [:]
        for (name, field) in fields { result[name] = try self.value(field) }
        return ObjectValue(result)
    }

    package func value(_ json: Any) throws(FirestoreErrorCode) -> Value {
        guard let object = json as? [String: Any], object.count == 1, let (kind, content) = object.first else {
            throw LoadedBundle.malformed("a value must be an object with one typed field, such as {\"stringValue\": \"a\"}")
        }
        switch kind {
        case "nullValue": return .null
        case "booleanValue":
            guard let bool = content as? Bool else { break }
            return .boolean(bool)
        case "integerValue":
            if let text = content as? String, let integer = Int64(text) { return .integer(integer) }
            if let number = content as? NSNumber { return .integer(number.int64Value) }
        case "doubleValue":
            if let number = content as? NSNumber { return .double(number.doubleValue) }
            if let text = content as? String, let double = Double(text) { return .double(double) }
        case "stringValue":
            guard let string = content as? String else { break }
            return .string(string)
        case "timestampValue": return .timestamp(try timestamp(content, "timestampValue"))
        case "bytesValue":
            guard let text = content as? String, let data = Data(base64Encoded: text) else { break }
            return .bytes(Array(data))
        case "referenceValue":
            return .reference(databaseID, try documentKey(content, "referenceValue"))
        case "geoPointValue":
            guard let point = content as? [String: Any] else { break }
            let latitude = (point["latitude"] as? NSNumber)?.doubleValue ?? 0
            let longitude = (point["longitude"] as? NSNumber)?.doubleValue ?? 0
            return .geoPoint(GeoPoint(latitude: latitude, longitude: longitude))
        case "arrayValue":
            guard let array = content as? [String: Any] else { break }
            var values: [Value] = []
            for element in array["values"] as? [Any] ?? [] { values.append(try value(element)) }
            return .array(values)
        case "mapValue":
            guard let map = content as? [String: Any] else { break }
            return .map(try fields(map["fields"]))
        default:
            throw LoadedBundle.malformed("unknown value type \(kind)")
        }
        throw LoadedBundle.malformed("the \(kind) \(content) is not valid")
    }
}
