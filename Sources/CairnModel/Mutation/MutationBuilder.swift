/// Turns the user data of `setData`, `setData(merge:)`, `setData(mergeFields:)`, `updateData` and `delete` into
/// a ``Mutation``, as the Firebase SDKs' user-data reader does (`FSTUserDataReader.mm`, `core/user_data.cc`).
///
/// - `set` → a set with precondition `.none`; sentinels become transforms; `FieldValue.delete()` is an error.
/// - `setMerge` → a patch with precondition `.none` whose mask is every leaf of the data plus each
///   `FieldValue.delete()` (empty maps count as leaves); with `mergeFields`, the mask is exactly those paths, each
///   of which must appear in the data, and only transforms under them are kept.
/// - `update` → a patch with precondition `exists(true)` whose mask is the given top-level paths (a value at
///   `a.b` replaces only `a.b`; a map value replaces the whole map); `FieldValue.delete()` only as such a
///   value.
///
/// Bad data throws ``ModelError`` `invalidArgument` with the SDK's message, never a partial mutation. Every
/// mutation built is checked against the server's limits (``DocumentValidation``'s `validate(_ mutation:)`:
/// document IDs, field names, depth, nested arrays, sizes) before it is returned, so nothing the cache could
/// not store and read back reaches the outbox.
///
/// ```swift
/// let builder = MutationBuilder(databaseID: DatabaseID(projectID: "demo"))
/// let key = DocumentKey(path: ResourcePath(segments: ["users", "ada"]))
/// let write = try builder.update(key, data: [
///     FieldPath(segments: ["visits"]): .increment(.integer(1)),
///     FieldPath(segments: ["address", "city"]): "London",
///     FieldPath(segments: ["nickname"]): .delete,
/// ])
/// // patch(users/ada, {address.city nickname}, exists(true), 1 transform(s))
/// ```
package struct MutationBuilder: Sendable {
    /// The database written to: document references in the data must point into it.
    package let databaseID: DatabaseID

    package init(databaseID: DatabaseID) {
        self.databaseID = databaseID
    }

    /// `setData(data)`: replaces the document.
    ///
    /// ```swift
    /// try builder.set(key, data: ["name": "Ada", "joined": .serverTimestamp])
    /// ```
    package func set(_ key: DocumentKey, data: [String: UserValue]) throws(ModelError) -> Mutation {
        var parser = UserDataParser(source: .set, databaseID: databaseID)
        let value = try parser.parseDocument(data)
        return try validated(.set(key, value: value, precondition: .none, transforms: parser.transforms))
    }

    /// `setData(data, merge: true)` (`mergeFields == nil`) or `setData(data, mergeFields:)`: writes only some
    /// fields, creating the document if needed.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` "Field 'x' is specified in your field mask but missing from
    ///   your input data." when a merge field is neither in the data nor a parent of something in it.
    ///
    /// ```swift
    /// try builder.setMerge(key, data: ["address": ["city": "London"], "nickname": .delete])
    /// // patch: mask {address.city nickname}, precondition none
    /// try builder.setMerge(key, data: ["a": 1, "b": 2], mergeFields: [FieldPath(segments: ["a"])])
    /// // patch: mask {a}; b is ignored
    /// ```
    package func setMerge(_ key: DocumentKey, data: [String: UserValue], mergeFields: [FieldPath]? = nil) throws(ModelError) -> Mutation {
        var parser = UserDataParser(source: .mergeSet, databaseID: databaseID)
        let value = try parser.parseDocument(data)
        guard let mergeFields else {
            return try validated(.patch(key, value: value, mask: FieldMask(parser.fieldMask), precondition: .none,
                                        transforms: parser.transforms))
        }
        for field in mergeFields where !parser.contains(field) {
            throw ModelError.invalidArgument(
                "Field '\(field.canonicalString)' is specified in your field mask but missing from your input data.")
        }
        let mask = FieldMask(mergeFields)
        // Only the masked fields are written: the rest of the data is not stored with the write.
        var written = ObjectValue()
        for path in mask.fields where !path.isEmpty {
            if let field = value.value(at: path) { written.set(field, at: path) }
        }
        return try validated(.patch(key, value: written, mask: mask, precondition: .none,
                                    transforms: parser.transforms.filter { mask.covers($0.field) }))
    }

    /// `updateData(data)`: writes the given field paths of an existing document (the server rejects the write
    /// when the document does not exist, and the local view ignores it).
    ///
    /// Keys are field paths, so `FieldPath(segments: ["a", "b"])` (Firebase's `"a.b"`) writes `b` inside `a`
    /// and keeps `a`'s other fields.
    ///
    /// ```swift
    /// try builder.update(key, data: [FieldPath(segments: ["stats", "likes"]): .increment(.integer(1))])
    /// ```
    package func update(_ key: DocumentKey, data: [FieldPath: UserValue]) throws(ModelError) -> Mutation {
        var parser = UserDataParser(source: .update, databaseID: databaseID)
        var value = ObjectValue()
        var mask: [FieldPath] = []
        for path in data.keys.sorted() {
            try FieldValidation.validateWritableFieldPath(path)
            let context = UserDataParser.Context.root.child(path)
            let userValue = data[path]!
            if case .delete = userValue {
                mask.append(path)
            } else if let parsed = try parser.parse(userValue, context: context) {
                mask.append(path)
                value.set(parsed, at: path)
            }
        }
        return try validated(.patch(key, value: value, mask: FieldMask(mask), precondition: .exists(true),
                                    transforms: parser.transforms))
    }

    /// A query argument (`whereField(_:isEqualTo:)`, an `in` element, a cursor value): plain data, checked as
    /// the SDKs check arguments (no sentinels, no arrays inside arrays, references into this database).
    ///
    /// ```swift
    /// try builder.queryValue(["a", "b"])          // .array([.string("a"), .string("b")])
    /// try builder.queryValue(.serverTimestamp)    // throws: can only be used with updateData() and setData()
    /// ```
    package func queryValue(_ value: UserValue) throws(ModelError) -> Value {
        var parser = UserDataParser(source: .argument, databaseID: databaseID)
        return try parser.parse(value, context: .root) ?? .null
    }

    /// `delete()`: deletes the document, whether or not it exists.
    ///
    /// ```swift
    /// try builder.delete(key)   // delete(users/ada, none)
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` when the key breaks ``PathValidation``'s rules.
    package func delete(_ key: DocumentKey) throws(ModelError) -> Mutation {
        try validated(.delete(key, precondition: .none))
    }

    /// `mutation`, once ``DocumentValidation`` accepts it.
    private func validated(_ mutation: Mutation) throws(ModelError) -> Mutation {
        try DocumentValidation.validate(mutation)
        return mutation
    }
}
