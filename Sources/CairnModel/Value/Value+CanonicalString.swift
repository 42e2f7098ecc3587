extension Value {
    /// A deterministic, ASCII-only text form of the value, used in query canonical ids.
    ///
    /// Two values have the same canonical string exactly when they are `==` (for references, provided their
    /// segments contain no `/`, which valid document keys never do). Grammar:
    ///
    /// ```text
    /// value     = "null" | "true" | "false"
    ///           | integer                       ; decimal: 42, -7
    ///           | double                        ; Swift's shortest round-trip form, always with "." or "e",
    ///                                           ; or nan, inf, -inf: 1.0, -0.0, 1e+100, 5e-324
    ///           | "time(" seconds "," nanos ")"
    ///           | "serverTimestamp(" seconds "," nanos ")"   ; the local write time
    ///           | quoted                        ; a string
    ///           | "<" hex ">"                   ; bytes, lowercase hex: <00ff>
    ///           | "ref(" quoted ")"             ; project/database/segment/...: ref("p/(default)/users/ada")
    ///           | "geo(" double "," double ")"  ; -0.0 written as 0.0, as geopoints compare numerically
    ///           | "[" [value *("," value)] "]"
    ///           | "{" [key ":" value *("," key ":" value)] "}"   ; keys in UTF-8 order
    /// key       = identifier | quoted           ; identifier = [A-Za-z_][A-Za-z0-9_]*
    /// quoted    = '"' *char '"'                 ; char: printable ASCII except " and \ as is;
    ///                                           ; \" \\ and \u{hex} for every other Unicode scalar
    /// ```
    ///
    /// Escaping every non-ASCII scalar makes the result pure ASCII, so comparing canonical strings with Swift's
    /// `==` (which normalises Unicode) is still byte-exact.
    ///
    /// ```swift
    /// Value.map(ObjectValue(["b": .double(1), "a": .array([.string("x"), .integer(1)])])).canonicalString
    /// // {a:["x",1],b:1.0}
    /// ```
    package var canonicalString: String {
        var output = ""
        appendCanonical(to: &output)
        return output
    }

    private func appendCanonical(to output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .boolean(let value):
            output += value ? "true" : "false"
        case .integer(let value):
            output += String(value)
        case .double(let value):
            output += Self.canonicalDouble(value)
        case .timestamp(let time):
            output += "time(\(time.seconds),\(time.nanoseconds))"
        case .serverTimestamp(let time, _):
            output += "serverTimestamp(\(time.seconds),\(time.nanoseconds))"
        case .string(let value):
            Self.appendQuoted(value, to: &output)
        case .bytes(let bytes):
            output += "<"
            for byte in bytes {
                output.unicodeScalars.append(Self.hexDigits[Int(byte >> 4)])
                output.unicodeScalars.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            output += ">"
        case .reference(let database, let key):
            output += "ref("
            let name = ([database.projectID, database.databaseID] + key.path.segments).joined(separator: "/")
            Self.appendQuoted(name, to: &output)
            output += ")"
        case .geoPoint(let point):
            let latitude = point.latitude == 0 ? 0 : point.latitude
            let longitude = point.longitude == 0 ? 0 : point.longitude
            output += "geo(\(Self.canonicalDouble(latitude)),\(Self.canonicalDouble(longitude)))"
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.appendCanonical(to: &output)
            }
            output += "]"
        case .map(let object):
            output += "{"
            for (index, key) in BytewiseOrder.sortedKeys(object.fields).enumerated() {
                if index > 0 { output += "," }
                if Self.isIdentifier(key) { output += key } else { Self.appendQuoted(key, to: &output) }
                output += ":"
                object.fields[key]!.appendCanonical(to: &output)
            }
            output += "}"
        }
    }

    private static let hexDigits: [Unicode.Scalar] = Array("0123456789abcdef".unicodeScalars)

    /// Swift's shortest round-trip description, which for finite values always contains "." or "e"; every NaN
    /// is written `nan` (NaNs are all equal).
    private static func canonicalDouble(_ value: Double) -> String {
        value.isNaN ? "nan" : value.description
    }

    private static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case " "..."~": output.unicodeScalars.append(scalar)
            default: output += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        output += "\""
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
    }
}
