/// Checks data a user writes against the rules the Firestore server enforces, so that a write is rejected when
/// it is made (`invalidArgument` with the reason and where the problem is), not when the outbox reaches the
/// server, possibly much later.
///
/// Rules and their sources:
/// - maps and arrays nest at most 20 levels; each map or array value adds one level, the document itself is
///   level 0 (Firebase "Usage and limits": "Maximum depth of fields in a map or array: 20. Map and array fields
///   add one level to the overall depth of an object");
/// - an array cannot directly contain an array (Firestore v1 `Value.array_value`: "Cannot contain another array
///   value"; the Firebase SDKs: "Nested arrays are not supported"); an array inside a map inside an array is fine;
/// - field names are not empty, not reserved (`__.*__`) and at most 1,500 bytes (``FieldValidation``);
/// - timestamps and geopoints are in range (``ValueRanges``);
/// - a vector has 1 to 2,048 elements, all doubles (the server's messages: "Cannot have a zero length vector.",
///   "Vectors must be at most 2048 dimensions.", "Vector must only contain values of type 'double'");
/// - the document's IDs and name satisfy ``PathValidation``;
/// - a field value is at most 1 MiB - 89 bytes (1,048,487) and the document at most 1 MiB (1,048,576), in
///   Firestore's storage size (``storageSize(of:key:)``). The size messages are the server's ("Document 'c/d'
///   cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of 1,048,576 bytes.",
///   "The value of property "s" is longer than 1048487 bytes."), with a remedy added.
///
/// Whatever passes nests at most 20 levels, far below what the cache's document codec reads back
/// (``DocumentCodec/maxNestingDepth``).
///
/// Documents the server sends are not validated: they were accepted by the server already.
///
/// ```swift
/// let key = try DocumentKey(parsing: "users/ada")
/// try DocumentValidation.validate(ObjectValue(["name": .string("Ada")]), key: key)          // ok
/// try DocumentValidation.validate(ObjectValue(["m": .array([.array([])])]), key: key)
/// // invalidArgument: "Invalid data. Nested arrays are not supported ... (found in field m[0] in document users/ada)"
/// ```
package enum DocumentValidation {
    /// The deepest a map or array may sit: a top-level map or array field is at depth 1.
    package static let maxDepth = 20
    /// The largest document, in Firestore storage bytes (1 MiB).
    package static let maxDocumentBytes = 1_048_576
    /// The largest field value, in Firestore storage bytes (1 MiB - 89 bytes).
    package static let maxFieldValueBytes = 1_048_487
    /// The most elements a vector may have.
    package static let maxVectorDimensions = 2_048

    /// Checks a whole document a write stores (`setData`): its key, every value, and its size.
    ///
    /// When the data breaks several rules, which one is reported is unspecified.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` with the reason and the field path where it applies.
    package static func validate(_ data: ObjectValue, key: DocumentKey) throws(ModelError) {
        try PathValidation.validate(key.path)
        var checker = ValueChecker(document: key)
        for (name, value) in data.fields {
            try checker.checkField(name, value, enclosingDepth: 0)
        }
        let size = storageSize(of: data, key: key)
        if let problem = sizeProblem(size, key: key) { throw ModelError.invalidArgument(problem) }
        // A field value can only exceed its limit in a document that exceeds it too.
        if size > maxFieldValueBytes {
            for (name, value) in data.fields {
                try checkFieldValueSize(value, at: FieldPath(segments: [name]), document: key)
            }
        }
    }

    /// Checks one value a write stores at `path` (an `updateData` entry, a merge field, a transform operand):
    /// the path itself (``FieldValidation/validateWritableFieldPath(_:)``), the maps the path implies (`a.b`
    /// puts the value inside map `a`), the value's nesting counted from the document root, its contents, and its
    /// size. The size of the resulting document depends on the stored document: the local store checks it when
    /// it applies the write (`LocalStore.writeLocally`), and the server when it commits it.
    ///
    /// ```swift
    /// try DocumentValidation.validate(.map(ObjectValue()), at: FieldPath(parsingDotted: "a.b"))   // ok: depth 2
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` with the reason and the field path where it applies.
    package static func validate(_ value: Value, at path: FieldPath) throws(ModelError) {
        try FieldValidation.validateWritableFieldPath(path)
        var checker = ValueChecker(document: nil, location: path.segments.map(ValueChecker.Step.field))
        try checker.checkEnclosingMaps(path.count - 1)
        try checker.check(value, enclosingDepth: path.count - 1, inArray: false)
        try checkFieldValueSize(value, at: path, document: nil)
    }

    /// Why a document of `size` storage bytes cannot be written, or `nil` when it can: the server's message
    /// for a document over 1 MiB, with the number grouped as the server groups it.
    ///
    /// ```swift
    /// DocumentValidation.sizeProblem(1_048_667, key: key)
    /// // "Document 'users/ada' cannot be written because its size (1,048,667 bytes) exceeds the maximum
    /// //  allowed size of 1,048,576 bytes. ..."
    /// ```
    package static func sizeProblem(_ size: Int, key: DocumentKey) -> String? {
        guard size > maxDocumentBytes else { return nil }
        return "Document '\(key)' cannot be written because its size (\(grouped(size)) bytes) exceeds the maximum "
            + "allowed size of \(grouped(maxDocumentBytes)) bytes. Split the document or store large values "
            + "elsewhere (for example in Cloud Storage)."
    }

    /// Why a map or array at `depth` (a top-level field's map is at depth 1) cannot be written, or `nil` when
    /// it can. Readers of user data that recurse into it stop with this message at the limit.
    package static func depthProblem(_ depth: Int) -> String? {
        guard depth > maxDepth else { return nil }
        return "The value exceeds the maximum depth of \(maxDepth) nested maps and arrays (it reaches depth "
            + "\(depth)). Flatten the data or move the inner part to a subcollection."
    }

    /// `1048576` as `1,048,576`.
    private static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }

    static func checkFieldValueSize(
        _ value: Value, at path: FieldPath, document: DocumentKey?
    ) throws(ModelError) {
        let size = storageSize(of: value)
        if size > maxFieldValueBytes {
            let place = document.map { " in document \($0)" } ?? ""
            throw ModelError.invalidArgument(
                "Invalid data. The value of property \"\(path)\"\(place) is longer than \(maxFieldValueBytes) "
                    + "bytes (it is \(size) bytes; a field value may be at most 1 MiB - 89 bytes).")
        }
    }
}

/// Walks a value depth-first, keeping the path to the current value for messages.
struct ValueChecker {
    /// One step from a value to a value inside it.
    enum Step {
        case field(String)
        case index(Int)
    }

    let document: DocumentKey?
    var location: [Step] = []
    /// False for the operands of array transforms, whose map keys are values, not field names.
    var checksFieldNames = true

    mutating func checkField(_ name: String, _ value: Value, enclosingDepth: Int) throws(ModelError) {
        location.append(.field(name))
        if checksFieldNames, let reason = FieldValidation.problem(withFieldName: name) { throw error(reason) }
        try check(value, enclosingDepth: enclosingDepth, inArray: false)
        location.removeLast()
    }

    /// Checks `value`, which sits inside `enclosingDepth` maps and arrays, directly in an array if `inArray`.
    mutating func check(_ value: Value, enclosingDepth: Int, inArray: Bool) throws(ModelError) {
        switch value {
        case .array(let elements):
            if inArray {
                throw error(
                    "Nested arrays are not supported: an array cannot directly contain another array. "
                        + "Wrap the inner array in a map, as in [{\"values\": [...]}].")
            }
            let depth = try enter(enclosingDepth)
            for (index, element) in elements.enumerated() {
                location.append(.index(index))
                try check(element, enclosingDepth: depth, inArray: true)
                location.removeLast()
            }
        case .map(let object) where object.vectorElements != nil:
            // A vector (FieldValue.vector): its reserved keys are Firestore's own; its size and elements are checked.
            _ = try enter(enclosingDepth)
            let elements = object.vectorElements ?? []
            if elements.isEmpty { throw error("Cannot have a zero length vector.") }
            if elements.count > DocumentValidation.maxVectorDimensions {
                throw error(
                    "Vectors must be at most \(DocumentValidation.maxVectorDimensions) dimensions, but this one has "
                        + "\(elements.count).")
            }
            if elements.contains(where: { if case .double = $0 { false } else { true } }) {
                throw error("Vector must only contain values of type 'double'.")
            }
        case .map(let object):
            let depth = try enter(enclosingDepth)
            for (name, field) in object.fields {
                try checkField(name, field, enclosingDepth: depth)
            }
        case .timestamp(let timestamp):
            if let reason = ValueRanges.problem(with: timestamp) { throw error(reason) }
        case .geoPoint(let point):
            if let reason = ValueRanges.problem(with: point) { throw error(reason) }
        case .null, .boolean, .integer, .double, .serverTimestamp, .string, .bytes, .reference:
            break
        }
    }

    /// The depth of a map or array inside `enclosingDepth` others, if it is allowed.
    private func enter(_ enclosingDepth: Int) throws(ModelError) -> Int {
        let depth = enclosingDepth + 1
        if let problem = DocumentValidation.depthProblem(depth) { throw error(problem) }
        return depth
    }

    /// Checks that the `count` maps a field path implies (`a.b.c` puts `c` inside the maps `a` and `b`) fit.
    func checkEnclosingMaps(_ count: Int) throws(ModelError) {
        if let problem = DocumentValidation.depthProblem(count) { throw error(problem) }
    }

    private func error(_ reason: String) -> ModelError {
        var found: [String] = []
        if !location.isEmpty { found.append("in field \(renderedLocation)") }
        if let document { found.append("in document \(document)") }
        let suffix = found.isEmpty ? "" : " (found \(found.joined(separator: " ")))"
        return ModelError.invalidArgument("Invalid data. \(reason)\(suffix)")
    }

    /// The location as a field path with array indexes: ``address.`zip code`.lines[2]``.
    private var renderedLocation: String {
        var text = ""
        for step in location {
            switch step {
            case .field(let name):
                if !text.isEmpty { text += "." }
                text += FieldPath.escapedSegment(name)
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text.count <= 300 ? text : "…\(text.suffix(300))"
    }
}
