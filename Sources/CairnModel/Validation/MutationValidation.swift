/// Checks a whole write before it is queued: everything ``DocumentValidation`` checks for data, applied to each
/// part of a ``Mutation`` that ends up stored. ``MutationBuilder`` runs it on every mutation it builds, so every
/// write form of the API (`setData` and its merges, `updateData`, `delete`, batches, transactions, `Codable`)
/// passes through it once.
///
/// What it guarantees beyond the server's rules: nothing it accepts nests deeper than 20 levels, so nothing it
/// accepts can exceed the cache decoder's bound (``DocumentCodec/maxNestingDepth``, 100) and make the cache
/// unreadable after a restart.
///
/// | kind   | checked                                                                                         |
/// |--------|-------------------------------------------------------------------------------------------------|
/// | set    | the key, the data (depth, nested arrays, field names, ranges) and the data's size               |
/// | patch  | the key, the data as above (the written fields are part of the result, so their size is a lower |
/// |        | bound of the result's), each mask path (field names, 1,500 bytes, the maps it implies)          |
/// | delete, verify | the key                                                                                 |
///
/// Transforms of sets and patches: the field path and the maps it implies, and the operand of `increment`,
/// `arrayUnion`, `arrayRemove` as a value at that path (depth, nested arrays, ranges, size; an operand's own
/// field names are values, not fields, and are not checked, as in the Firebase SDKs). The size of a document
/// that only the local view knows (a patch or transform applied to a stored document) is checked by the local
/// store when it applies the write (`LocalStore.writeLocally`).
///
/// ```swift
/// let key = try DocumentKey(parsing: "users/ada")
/// try DocumentValidation.validate(Mutation.set(key, value: ObjectValue(["name": .string("Ada")])))   // ok
/// try DocumentValidation.validate(Mutation.patch(key, value: ObjectValue(),
///                                                mask: FieldMask([FieldPath(segments: ["__x__"])])))
/// // invalidArgument: Invalid field path (__x__). Document fields cannot begin and end with "__" ...
/// ```
extension DocumentValidation {
    /// Checks `mutation` as described above.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` with the reason and where it applies.
    package static func validate(_ mutation: Mutation) throws(ModelError) {
        switch mutation.kind {
        case .set(let value):
            try validate(value, key: mutation.key)
        case .patch(let value, let mask):
            try validate(value, key: mutation.key)
            for path in mask.fields {
                try validateWritablePath(path)
            }
        case .delete, .verify:
            try PathValidation.validate(mutation.key.path)
        }
        for transform in mutation.fieldTransforms {
            try validate(transform)
        }
    }

    private static func validate(_ transform: FieldTransform) throws(ModelError) {
        switch transform.operation {
        case .serverTimestamp:
            try validateWritablePath(transform.field)
        case .increment(let operand):
            try validateOperand(operand, at: transform.field)
        case .arrayUnion(let elements), .arrayRemove(let elements):
            try validateOperand(.array(elements), at: transform.field)
        }
    }

    /// A path a write addresses: its segments, its length, and the maps it implies.
    private static func validateWritablePath(_ path: FieldPath) throws(ModelError) {
        try FieldValidation.validateWritableFieldPath(path)
        let checker = ValueChecker(document: nil, location: path.segments.map(ValueChecker.Step.field))
        try checker.checkEnclosingMaps(path.count - 1)
    }

    /// A transform's operand, which ends up at `path`: as ``validate(_:at:)`` without field-name checks.
    private static func validateOperand(_ value: Value, at path: FieldPath) throws(ModelError) {
        try validateWritablePath(path)
        var checker = ValueChecker(
            document: nil, location: path.segments.map(ValueChecker.Step.field), checksFieldNames: false)
        try checker.check(value, enclosingDepth: path.count - 1, inArray: false)
        try checkFieldValueSize(value, at: path, document: nil)
    }
}
