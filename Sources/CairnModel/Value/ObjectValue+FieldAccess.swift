extension ObjectValue {
    /// A map with no fields (also the contents of an empty document).
    package static let empty = ObjectValue()

    /// True when the map has no fields.
    package var isEmpty: Bool { fields.isEmpty }

    /// The value at a field path, following nested maps; `nil` when any segment is missing or a segment before
    /// the last names something other than a map. The empty path names the whole object. Only fields are read:
    /// the document-key pseudo-field `__name__` (``FieldPath/documentKey``) is the caller's to resolve.
    ///
    /// ```swift
    /// let user = ObjectValue(["address": .map(ObjectValue(["city": .string("Oslo")]))])
    /// user.value(at: FieldPath(segments: ["address", "city"]))  // .string("Oslo")
    /// user.value(at: FieldPath(segments: ["address", "zip"]))   // nil
    /// ```
    package func value(at path: FieldPath) -> Value? {
        guard let first = path.segments.first else { return .map(self) }
        var current = fields[first]
        for segment in path.segments.dropFirst() {
            guard case .map(let object)? = current else { return nil }
            current = object.fields[segment]
        }
        return current
    }

    /// Sets the value at a field path, creating the intermediate maps that are missing and replacing
    /// intermediate values that are not maps (as a Firestore `update` with a dotted path does).
    ///
    /// The path must not be empty (a caller error: validated field paths always have a segment).
    ///
    /// ```swift
    /// var doc = ObjectValue.empty
    /// doc.set(.integer(1), at: FieldPath(segments: ["a", "b"]))   // {a:{b:1}}
    /// doc.set(.integer(2), at: FieldPath(segments: ["a", "b", "c"]))  // {a:{b:{c:2}}}: 1 was replaced
    /// ```
    package mutating func set(_ value: Value, at path: FieldPath) {
        precondition(!path.segments.isEmpty, "ObjectValue.set needs a non-empty field path")
        set(value, at: path.segments[...])
    }

    private mutating func set(_ value: Value, at segments: ArraySlice<String>) {
        let head = segments.first!
        let rest = segments.dropFirst()
        if rest.isEmpty {
            fields[head] = value
            return
        }
        var child: ObjectValue
        if case .map(let existing)? = fields.removeValue(forKey: head) {
            child = existing
        } else {
            child = ObjectValue()
        }
        child.set(value, at: rest)
        fields[head] = .map(child)
    }

    /// Removes the value at a field path. Nothing happens when the path does not exist or crosses a value that
    /// is not a map; intermediate maps left empty are kept (as Firestore does: deleting `a.b` from `{a:{b:1}}`
    /// leaves `{a:{}}`).
    ///
    /// The path must not be empty (a caller error).
    ///
    /// ```swift
    /// var doc = ObjectValue(["a": .map(ObjectValue(["b": .integer(1), "c": .integer(2)]))])
    /// doc.delete(at: FieldPath(segments: ["a", "b"]))   // {a:{c:2}}
    /// ```
    package mutating func delete(at path: FieldPath) {
        precondition(!path.segments.isEmpty, "ObjectValue.delete needs a non-empty field path")
        delete(at: path.segments[...])
    }

    private mutating func delete(at segments: ArraySlice<String>) {
        let head = segments.first!
        let rest = segments.dropFirst()
        if rest.isEmpty {
            fields.removeValue(forKey: head)
            return
        }
        guard case .map(var child)? = fields[head] else { return }
        // Drop our reference first so the child map is uniquely owned and mutated in place.
        fields[head] = .null
        child.delete(at: rest)
        fields[head] = .map(child)
    }
}
