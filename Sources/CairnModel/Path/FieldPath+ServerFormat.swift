/// The escaped field path syntax of the Firestore v1 protocol (`DocumentMask.field_paths`,
/// `FieldTransform.field_path`, `StructuredQuery.FieldReference.field_path`, index definitions).
///
/// Grammar (Firestore REST reference, `Document.fields`; SDKs: `FieldPath::CanonicalString` and
/// `FieldPath::FromServerFormat` in firebase-ios-sdk `Firestore/core/src/model/field_path.cc`):
///
/// ```
/// field-path = segment *( "." segment )
/// segment    = simple / quoted
/// simple     = ( ALPHA / "_" ) *( ALPHA / DIGIT / "_" )      ; ASCII letters only
/// quoted     = "`" 1*( escaped / any-but-backtick-or-backslash ) "`"
/// escaped    = "\" any                                         ; "\`" is a backtick, "\\" a backslash
/// ```
///
/// Writing: a segment is escaped (`\` → `\\`, `` ` `` → `` \` ``) and, unless it is a simple name, wrapped in
/// backticks. Reading is as lenient as the SDKs: backticks toggle quoting wherever they appear, a backslash
/// takes the next character literally, and a `.` outside backticks ends a segment. Reading the written form
/// always gives the original segments back.
extension FieldPath {
    /// The escaped form: simple names as they are, other names in backticks; `__name__` for the document key.
    ///
    /// ```swift
    /// try FieldPath(["address", "zip code"]).canonicalString   // "address.`zip code`"
    /// try FieldPath(["a`b", "1st"]).canonicalString            // "`a\\`b`.`1st`"
    /// FieldPath.documentKey.canonicalString                    // "__name__"
    /// ```
    package var canonicalString: String {
        segments.map(Self.escapedSegment).joined(separator: ".")
    }

    /// Parses the escaped form (see the grammar above), the inverse of ``canonicalString``.
    ///
    /// ```swift
    /// try FieldPath(parsingServerFormat: "a.`b.c`.d").segments   // ["a", "b.c", "d"]
    /// try FieldPath(parsingServerFormat: "`a\\`b`").segments     // ["a`b"]
    /// try FieldPath(parsingServerFormat: "a.")                   // throws: must not end with '.'
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` for an empty segment, a trailing `\`, or an unterminated
    ///   backtick.
    package init(parsingServerFormat string: String) throws(ModelError) {
        var segments: [String] = []
        var current: [UInt8] = []
        var quoted = false
        var escaping = false
        for byte in string.utf8 {
            if escaping {
                current.append(byte)
                escaping = false
                continue
            }
            switch byte {
            case UInt8(ascii: "\\"):
                escaping = true
            case UInt8(ascii: "`"):
                quoted.toggle()
            case UInt8(ascii: ".") where !quoted:
                guard !current.isEmpty else { throw ModelError.invalidArgument(Self.emptySegmentMessage(string)) }
                segments.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            default:
                current.append(byte)
            }
        }
        if escaping {
            throw ModelError.invalidArgument(
                "Invalid field path (\(string)). Trailing escape character '\\' is not allowed; "
                    + "escape a backslash as '\\\\'.")
        }
        if quoted {
            throw ModelError.invalidArgument(
                "Invalid field path (\(string)). Unterminated ` in path; close the quoted segment with '`'.")
        }
        guard !current.isEmpty else { throw ModelError.invalidArgument(Self.emptySegmentMessage(string)) }
        segments.append(String(decoding: current, as: UTF8.self))
        self.init(segments: segments)
    }

    /// One segment in the escaped form: backslashes and backticks escaped, then wrapped in backticks unless the
    /// segment is a simple name.
    static func escapedSegment(_ segment: String) -> String {
        if isSimpleName(segment) { return segment }
        var escaped = "`"
        for scalar in segment.unicodeScalars {
            if scalar == "\\" || scalar == "`" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(scalar)
        }
        escaped.unicodeScalars.append("`")
        return escaped
    }

    /// True for a name that needs no quoting: `[a-zA-Z_][a-zA-Z_0-9]*` (ASCII only).
    static func isSimpleName(_ segment: String) -> Bool {
        var bytes = segment.utf8.makeIterator()
        guard let first = bytes.next(), first == UInt8(ascii: "_") || isASCIILetter(first) else { return false }
        while let byte = bytes.next() {
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard byte == UInt8(ascii: "_") || isASCIILetter(byte) || isDigit else { return false }
        }
        return true
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
