/// Walks user data (``UserValue``) into a Firestore value, collecting the field mask and field transforms that
/// the data implies, and rejecting what Firestore does not allow where it appears (`FSTUserDataReader.mm` and
/// `core/user_data.cc` in the iOS SDK; error messages are theirs).
///
/// Where each sentinel may appear:
///
/// | sentinel                | set   | set with merge | update                        | inside arrays / arguments |
/// |-------------------------|-------|----------------|-------------------------------|---------------------------|
/// | delete                  | no    | yes            | only as a top-level value     | no                        |
/// | serverTimestamp, increment, arrayUnion, arrayRemove | yes | yes | yes           | no                        |
///
/// Arrays may not contain arrays. Field names of written data follow ``FieldValidation`` (not empty, not
/// `__.*__`, at most 1,500 bytes). A sentinel contributes no value: the field is left out of the parsed data (a transform or a mask entry
/// stands for it; inside an array, which cannot happen for valid input, it would be null).
struct UserDataParser {
    /// Which API call the data comes from: it decides where sentinels are allowed.
    enum Source {
        case set, mergeSet, update
        /// Elements of `arrayUnion` / `arrayRemove`: values, not writes.
        case argument

        var isWrite: Bool { self != .argument }
    }

    /// Where in the data the parser is: the field path (`nil` inside an array, whose elements have no path),
    /// whether the value is an array element, and the depth a map or array here would have (the document is
    /// depth 0, a top-level field's map depth 1).
    struct Context {
        var path: FieldPath?
        var isArrayElement: Bool
        var depth: Int

        static let root = Context(path: FieldPath(segments: []), isArrayElement: false, depth: 0)

        func child(_ segment: String) -> Context {
            Context(path: path.map { FieldPath(segments: $0.segments + [segment]) }, isArrayElement: false,
                    depth: depth + 1)
        }

        func child(_ subpath: FieldPath) -> Context {
            Context(path: path.map { FieldPath(segments: $0.segments + subpath.segments) }, isArrayElement: false,
                    depth: depth + subpath.count)
        }

        var arrayElement: Context { Context(path: nil, isArrayElement: true, depth: depth + 1) }

        /// ` (found in field a.b)`, or nothing at the root and inside arrays.
        var fieldDescription: String {
            guard let path, path.count > 0 else { return "" }
            return " (found in field \(path.canonicalString))"
        }
    }

    let source: Source
    let databaseID: DatabaseID
    /// Paths of the written leaves, empty maps and merge-deletes, for set-with-merge without merge fields.
    private(set) var fieldMask: [FieldPath] = []
    /// The transforms found, in data order (keys sorted, for a deterministic order).
    private(set) var transforms: [FieldTransform] = []

    init(source: Source, databaseID: DatabaseID) {
        self.source = source
        self.databaseID = databaseID
    }

    /// Whether `path` is, or is a parent of, a parsed field or transform (`ParseAccumulator::Contains`).
    func contains(_ path: FieldPath) -> Bool {
        fieldMask.contains { path.isPrefix(of: $0) } || transforms.contains { path.isPrefix(of: $0.field) }
    }

    /// The top-level map of a set, a merge, or an argument.
    mutating func parseDocument(_ fields: [String: UserValue]) throws(ModelError) -> ObjectValue {
        try parseMap(fields, context: .root)
    }

    /// One value at `context`; `nil` for a sentinel, which contributes no value. Maps and arrays deeper than
    /// ``DocumentValidation/maxDepth`` stop the walk, so deep input never recurses far.
    mutating func parse(_ value: UserValue, context: Context) throws(ModelError) -> Value? {
        switch value {
        case .map, .array, .vector, .value(.map), .value(.array):
            if let problem = DocumentValidation.depthProblem(context.depth) {
                throw ModelError.invalidArgument("Invalid data. \(problem)\(context.fieldDescription)")
            }
        default:
            break
        }
        switch value {
        case .map(let fields):
            return .map(try parseMap(fields, context: context))
        case .value(.map(let object)):
            return .map(try parseMap(object.fields.mapValues { .value($0) }, context: context))
        case .array(let elements):
            return try parseArray(elements, context: context)
        case .value(.array(let elements)):
            return try parseArray(elements.map { .value($0) }, context: context)
        case .value(let scalar):
            if let path = context.path { fieldMask.append(path) }
            return try validateScalar(scalar, context: context)
        case .vector(let elements):
            // A leaf, as in Firebase: a merge replaces the whole vector.
            if let path = context.path { fieldMask.append(path) }
            return Value.vector(elements)
        case .delete, .serverTimestamp, .increment, .arrayUnion, .arrayRemove:
            try parseSentinel(value, context: context)
            return nil
        }
    }

    private mutating func parseMap(_ fields: [String: UserValue], context: Context) throws(ModelError) -> ObjectValue {
        if fields.isEmpty {
            if let path = context.path, path.count > 0 { fieldMask.append(path) }
            return ObjectValue()
        }
        var result = ObjectValue()
        for key in fields.keys.sorted() {
            let child = context.child(key)
            try validateSegment(key, context: child)
            if let parsed = try parse(fields[key]!, context: child) {
                result.fields[key] = parsed
            }
        }
        return result
    }

    private mutating func parseArray(_ elements: [UserValue], context: Context) throws(ModelError) -> Value {
        if let path = context.path { fieldMask.append(path) }
        if context.isArrayElement {
            throw ModelError.invalidArgument("Nested arrays are not supported")
        }
        var result: [Value] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            result.append(try parse(element, context: context.arrayElement) ?? .null)
        }
        return .array(result)
    }

    private func validateScalar(_ value: Value, context: Context) throws(ModelError) -> Value {
        switch value {
        case .serverTimestamp:
            throw ModelError.invalidArgument(
                "Unsupported type: a pending server timestamp cannot be written; use FieldValue.serverTimestamp()"
                    + context.fieldDescription)
        case .reference(let other, _) where other != databaseID:
            throw ModelError.invalidArgument(
                "Document Reference is for database \(other.projectID)/\(other.databaseID) but should be for "
                    + "database \(databaseID.projectID)/\(databaseID.databaseID)\(context.fieldDescription)")
        default:
            return value
        }
    }

    private mutating func parseSentinel(_ sentinel: UserValue, context: Context) throws(ModelError) {
        let name = sentinel.sentinelName!
        guard source.isWrite else {
            throw ModelError.invalidArgument(
                "\(name) can only be used with updateData() and setData()\(context.fieldDescription)")
        }
        guard let path = context.path else {
            throw ModelError.invalidArgument("\(name) is not currently supported inside arrays")
        }
        let operation: TransformOperation
        switch sentinel {
        case .delete:
            switch source {
            case .mergeSet:
                fieldMask.append(path)
                return
            case .update:
                throw ModelError.invalidArgument(
                    "FieldValue.delete() can only appear at the top level of your update data\(context.fieldDescription)")
            case .set, .argument:
                throw ModelError.invalidArgument(
                    "FieldValue.delete() can only be used with updateData() and setData() with merge:true"
                        + context.fieldDescription)
            }
        case .serverTimestamp:
            operation = .serverTimestamp
        case .increment(let operand):
            guard operand.isNumber else {
                throw ModelError.invalidArgument(
                    "FieldValue.increment() needs an integer or a double operand\(context.fieldDescription)")
            }
            operation = .increment(operand)
        case .arrayUnion(let elements):
            operation = .arrayUnion(try parseArrayArguments(elements))
        case .arrayRemove(let elements):
            operation = .arrayRemove(try parseArrayArguments(elements))
        case .value, .map, .array, .vector:
            preconditionFailure("\(sentinel) is not a sentinel")
        }
        transforms.append(FieldTransform(field: path, operation: operation))
    }

    /// The elements of an array transform: plain values (they are arguments, not writes), no arrays.
    private func parseArrayArguments(_ elements: [UserValue]) throws(ModelError) -> [Value] {
        var parser = UserDataParser(source: .argument, databaseID: databaseID)
        var values: [Value] = []
        for element in elements {
            values.append(try parser.parse(element, context: Context.root.arrayElement) ?? .null)
        }
        return values
    }

    /// Checks a field name of written data with ``FieldValidation``'s rules (not empty, not reserved `__.*__`,
    /// at most 1,500 bytes). Arguments of array transforms are values, not fields, and are not checked.
    private func validateSegment(_ segment: String, context: Context) throws(ModelError) {
        guard source.isWrite, let problem = FieldValidation.problem(withFieldName: segment) else { return }
        throw ModelError.invalidArgument("Invalid data. \(problem)\(context.fieldDescription)")
    }
}
