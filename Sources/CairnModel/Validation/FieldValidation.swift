/// The server's constraints on the names of fields a write stores and on the field paths a write addresses.
///
/// Rules (Firebase "Usage and limits", https://firebase.google.com/docs/firestore/quotas; Firestore REST
/// reference, `Document.fields`: "Field names matching the regular expression `__.*__` are reserved ... The
/// field names, represented as UTF-8, must not exceed 1,500 bytes and cannot be empty"):
/// - a field name is not empty, at most 1,500 bytes, and does not match `__.*__`;
/// - a field path is at most 1,500 bytes, measured in its escaped form (``FieldPath/canonicalString``), which is
///   the form a write sends in its update mask and transforms.
///
/// The reserved-name rule is the one the Firebase SDKs apply to written data (`ParseContext::ValidatePathSegment`,
/// message "Document fields cannot begin and end with "__""). It applies to writes only: queries may name
/// `__name__` (``FieldPath/documentKey``), and documents the server sends are never checked.
///
/// ```swift
/// try FieldValidation.validateFieldName("city")                        // ok
/// try FieldValidation.validateFieldName("__meta__")                    // throws: reserved
/// try FieldValidation.validateWritableFieldPath(FieldPath(parsingDotted: "address.city"))   // ok
/// ```
package enum FieldValidation {
    /// The longest field name, in UTF-8 bytes.
    package static let maxFieldNameBytes = 1_500
    /// The longest field path, in UTF-8 bytes of its escaped form.
    package static let maxFieldPathBytes = 1_500

    /// True when `name` is reserved by Firestore: it matches `__.*__` (at least four bytes that begin and end
    /// with `__`). `"__"` and `"___"` are not reserved; `"____"` and `"__name__"` are.
    package static func isReserved(_ name: String) -> Bool { PathValidation.matchesReservedPattern(name) }

    /// Checks a field name that a write stores (a key of the written data, at any depth).
    ///
    /// - Throws: ``ModelError`` `invalidArgument` for an empty, reserved or over-long name.
    package static func validateFieldName(_ name: String) throws(ModelError) {
        if let reason = problem(withFieldName: name) {
            throw ModelError.invalidArgument("Invalid field name \(PathValidation.quoted(name)). \(reason)")
        }
    }

    /// Checks a field path that a write addresses: an `updateData` key, a merge field, a transform's field.
    /// Every segment must be a valid field name (``validateFieldName(_:)``) and the escaped path at most
    /// 1,500 bytes.
    ///
    /// ```swift
    /// try FieldValidation.validateWritableFieldPath(FieldPath(["stats", "__count__"]))   // throws: reserved
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` naming the path and the rule it breaks.
    package static func validateWritableFieldPath(_ path: FieldPath) throws(ModelError) {
        guard !path.isEmpty else {
            throw ModelError.invalidArgument(
                "Invalid field path. A write must address at least one field; the empty path names the whole "
                    + "document.")
        }
        for segment in path.segments {
            if let reason = problem(withFieldName: segment) {
                throw ModelError.invalidArgument(
                    "Invalid field path (\(shortened(path.canonicalString))). \(reason)")
            }
        }
        let bytes = path.canonicalString.utf8.count
        if bytes > maxFieldPathBytes {
            throw ModelError.invalidArgument(
                "Invalid field path (\(shortened(path.canonicalString))). Field paths must be no longer than "
                    + "1,500 bytes, but this one has \(bytes); use shorter field names or less nesting.")
        }
    }

    /// Why `name` cannot be stored as a field name, or `nil` when it can. The sentences follow the Firebase
    /// SDKs' wording so that people searching for them find the same explanations.
    static func problem(withFieldName name: String) -> String? {
        if name.isEmpty {
            return "Document fields must not be empty."
        }
        if isReserved(name) {
            return "Document fields cannot begin and end with \"__\": names matching __.*__ are reserved by "
                + "Firestore. Rename the field."
        }
        let bytes = name.utf8.count
        if bytes > maxFieldNameBytes {
            return "Field names must be no longer than 1,500 bytes, but this one has \(bytes)."
        }
        return nil
    }

    /// Text cut to 200 characters for a message.
    private static func shortened(_ text: String) -> String {
        text.count <= 200 ? text : "\(text.prefix(200))…"
    }
}
