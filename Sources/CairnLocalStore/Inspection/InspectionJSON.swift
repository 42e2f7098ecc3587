import CairnModel
import Foundation

// The JSON the inspector produces for people and scripts (`cairn dump --json`, `cairn outbox`), written by hand
// so that the output is deterministic (object keys in a fixed order) and Firestore's types survive the trip:
//
//   null, true, false, "string"     as themselves
//   integer                         digits, never a decimal point:            42
//   double                          always a decimal point:                   42.0, 1.5e-07
//   NaN, Infinity, -Infinity        {"__double__": "NaN"}, {"__double__": "Infinity"}, ...
//   timestamp                       {"__timestamp__": "2024-01-01T00:00:00.000000000Z"} (UTC, nanoseconds)
//   pending server timestamp        {"__serverTimestamp__": {"localWriteTime": timestamp, "previous": value}}
//   bytes                           {"__bytes__": "base64"}
//   reference                       {"__ref__": "projects/p/databases/(default)/documents/users/ada"}
//   geopoint                        {"__geo__": [latitude, longitude]}
//   array, map                      JSON arrays and objects (map keys in ascending order)

/// A JSON value with its object keys in a chosen order, rendered compactly (``render()``).
///
/// ```swift
/// InspectionJSON.value(.double(2)).render()             // "2.0"
/// InspectionJSON.value(.integer(2)).render()            // "2"
/// InspectionJSON.object([("a", .bool(true))]).render()  // {"a":true}
/// ```
package indirect enum InspectionJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A count or sequence number that may exceed `Int64` (an LSN, a size): digits, like ``integer(_:)``.
    case unsigned(UInt64)
    /// A finite double; ``render()`` always writes a decimal point (before any exponent).
    case double(Double)
    case string(String)
    case array([InspectionJSON])
    case object([(String, InspectionJSON)])

    package static func == (a: InspectionJSON, b: InspectionJSON) -> Bool { a.render() == b.render() }

    /// Compact JSON text.
    package func render() -> String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .integer(let value): text += String(value)
        case .unsigned(let value): text += String(value)
        case .double(let value): text += Self.formatDouble(value)
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let items):
            text += "["
            for (i, item) in items.enumerated() {
                if i > 0 { text += "," }
                item.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { text += "," }
                Self.writeString(key, to: &text)
                text += ":"
                value.write(to: &text)
            }
            text += "}"
        }
    }

    /// `2` → `2.0`, `1e-07` → `1.0e-07`: Swift's shortest round-tripping form with a decimal point added.
    static func formatDouble(_ value: Double) -> String {
        let text = value.description
        if text.contains(".") { return text }
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            return text[..<e] + ".0" + text[e...]
        }
        return text + ".0"
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension InspectionJSON {
    /// A Firestore value with its type marked (the convention at the top of this file).
    package static func value(_ value: Value) -> InspectionJSON {
        switch value {
        case .null: return .null
        case .boolean(let flag): return .bool(flag)
        case .integer(let integer): return .integer(integer)
        case .double(let double):
            if double.isNaN { return .object([("__double__", .string("NaN"))]) }
            if double.isInfinite { return .object([("__double__", .string(double < 0 ? "-Infinity" : "Infinity"))]) }
            return .double(double)
        case .timestamp(let timestamp): return .object([("__timestamp__", .string(formatTimestamp(timestamp)))])
        case .serverTimestamp(let localWriteTime, let previous):
            return .object([(
                "__serverTimestamp__",
                .object([
                    ("localWriteTime", .string(formatTimestamp(localWriteTime))),
                    ("previous", previous.map { Self.value($0) } ?? .null),
                ])
            )])
        case .string(let string): return .string(string)
        case .bytes(let bytes): return .object([("__bytes__", .string(Data(bytes).base64EncodedString()))])
        case .reference(let database, let key):
            return .object([("__ref__", .string("\(database)/documents/\(key.path.canonicalString)"))])
        case .geoPoint(let point):
            return .object([("__geo__", .array([finite(point.latitude), finite(point.longitude)]))])
        case .array(let items): return .array(items.map { Self.value($0) })
        case .map(let object): return fields(object)
        }
    }

    /// A document's fields (or a map value) as a JSON object, keys ascending.
    package static func fields(_ object: ObjectValue) -> InspectionJSON {
        .object(object.fields.keys.sorted().map { ($0, value(object.fields[$0]!)) })
    }

    private static func finite(_ double: Double) -> InspectionJSON {
        double.isFinite ? .double(double) : value(.double(double))
    }

    /// `2024-01-01T00:00:00.000000000Z`: UTC, always nine fractional digits. A value outside Firestore's range
    /// (years 0001...9999, nanoseconds 0...999,999,999), which only damaged data holds, is written as its two
    /// numbers: `@-99999999999s+5ns`.
    package static func formatTimestamp(_ timestamp: Timestamp) -> String {
        guard (-62_135_596_800...253_402_300_799).contains(timestamp.seconds),
            (0...999_999_999).contains(timestamp.nanoseconds)
        else { return "@\(timestamp.seconds)s+\(timestamp.nanoseconds)ns" }
        let nanos = pad(Int64(timestamp.nanoseconds), 9)
        let days = timestamp.seconds >= 0 ? timestamp.seconds / 86_400 : (timestamp.seconds - 86_399) / 86_400
        let second = timestamp.seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):"
            + "\(pad(second % 60, 2)).\(nanos)Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01, by eras of 400 years (146,097 days).
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // from March 1
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
