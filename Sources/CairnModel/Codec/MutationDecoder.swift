/// Reads the mutation-batch format described in `MutationCodec.swift`, checking every byte it reads: each read
/// stays inside the input or throws `dataLoss`, and each count is checked against the bytes left before anything
/// is allocated for it.
///
/// ```swift
/// var decoder = try MutationDecoder(batch: buffer)   // checks the version byte
/// let batch = try decoder.readBatch()
/// ```
struct MutationDecoder {
    private var reader: ByteReader

    /// A decoder positioned after the version byte of a batch.
    init(batch bytes: UnsafeRawBufferPointer) throws(ModelError) {
        reader = ByteReader(bytes, subject: .mutationBatch)
        let version = try readByte("format version")
        guard version == MutationCodec.formatVersion else {
            guard version > MutationCodec.formatVersion else {
                throw corrupt("format version byte \(version) (these bytes are not a Cairn mutation batch)")
            }
            throw ModelError(
                .dataLoss,
                "cannot decode a stored mutation batch: format version \(version) is newer than the version "
                    + "\(MutationCodec.formatVersion) this build reads; the cache was written by a newer Cairn "
                    + "(upgrade Cairn, or clear the cache) or is damaged")
        }
    }

    mutating func readBatch() throws(ModelError) -> MutationBatch {
        guard let batchID = Int(exactly: try readSignedVarint("batch id")) else {
            throw corrupt("batch id outside the range of Int")
        }
        let localWriteTime = try readTimestamp("local write time")
        // A mutation takes at least 7 bytes: kind, a key of two one-byte segments, precondition.
        let baseCount = try readLength("base mutation count", minimumBytesPerUnit: 7)
        var baseMutations: [Mutation] = []
        baseMutations.reserveCapacity(baseCount)
        for _ in 0..<baseCount { baseMutations.append(try readMutation()) }
        let count = try readLength("mutation count", minimumBytesPerUnit: 7)
        guard count > 0 else { throw corrupt("a batch without mutations") }
        var mutations: [Mutation] = []
        mutations.reserveCapacity(count)
        for _ in 0..<count { mutations.append(try readMutation()) }
        guard reader.isAtEnd else { throw corrupt("\(reader.remaining) unexpected bytes after the batch") }
        return MutationBatch(batchID: batchID, localWriteTime: localWriteTime, baseMutations: baseMutations, mutations: mutations)
    }

    private mutating func readMutation() throws(ModelError) -> Mutation {
        let kind = try readByte("mutation kind")
        guard (MutationTag.set...MutationTag.verify).contains(kind) else { throw corrupt("unknown mutation kind \(kind)") }
        let key = try readKey()
        let precondition = try readPrecondition()
        switch kind {
        case MutationTag.set:
            let value = try readDocument("set value")
            return .set(key, value: value, precondition: precondition, transforms: try readTransforms())
        case MutationTag.patch:
            let value = try readDocument("patch value")
            // A field path takes at least 2 bytes: its segment count and one segment length.
            let maskCount = try readLength("mask path count", minimumBytesPerUnit: 2)
            var paths: [FieldPath] = []
            paths.reserveCapacity(maskCount)
            for _ in 0..<maskCount { paths.append(try readFieldPath("mask path")) }
            let mask = FieldMask(paths)
            guard mask.fields == paths else { throw corrupt("mask paths out of order or repeated") }
            return .patch(key, value: value, mask: mask, precondition: precondition, transforms: try readTransforms())
        case MutationTag.delete:
            return .delete(key, precondition: precondition)
        default:
            return .verify(key, precondition: precondition)
        }
    }

    private mutating func readKey() throws(ModelError) -> DocumentKey {
        let segments = try readSegments("document key")
        do {
            return try DocumentKey(validating: ResourcePath(segments: segments))
        } catch {
            throw corrupt("document key \"\(segments.joined(separator: "/"))\" is not a document path")
        }
    }

    private mutating func readPrecondition() throws(ModelError) -> Precondition {
        switch try readByte("precondition") {
        case MutationTag.noPrecondition: return .none
        case MutationTag.mustNotExist: return .exists(false)
        case MutationTag.mustExist: return .exists(true)
        case MutationTag.updateTime: return .updateTime(try readTimestamp("precondition update time"))
        case let tag: throw corrupt("unknown precondition \(tag)")
        }
    }

    private mutating func readTransforms() throws(ModelError) -> [FieldTransform] {
        // A transform takes at least 3 bytes: a field path and an operation.
        let count = try readLength("transform count", minimumBytesPerUnit: 3)
        var transforms: [FieldTransform] = []
        transforms.reserveCapacity(count)
        for _ in 0..<count {
            let field = try readFieldPath("transform field")
            let operation: TransformOperation
            switch try readByte("transform operation") {
            case MutationTag.serverTimestamp:
                operation = .serverTimestamp
            case MutationTag.increment:
                let operand = try readLoneValue("increment operand")
                guard operand.isNumber else { throw corrupt("an increment operand that is not a number") }
                operation = .increment(operand)
            case MutationTag.arrayUnion:
                operation = .arrayUnion(try readElements("array union elements"))
            case MutationTag.arrayRemove:
                operation = .arrayRemove(try readElements("array remove elements"))
            case let tag:
                throw corrupt("unknown transform operation \(tag)")
            }
            transforms.append(FieldTransform(field: field, operation: operation))
        }
        return transforms
    }

    private mutating func readElements(_ what: StaticString) throws(ModelError) -> [Value] {
        guard let elements = try readLoneValue(what).arrayElements else { throw corrupt("\(what) that are not an array") }
        return elements
    }

    /// A value wrapped in the one-field map {"v": value}.
    private mutating func readLoneValue(_ what: StaticString) throws(ModelError) -> Value {
        let object = try readDocument(what)
        guard object.fields.count == 1, let value = object.fields[MutationTag.valueField] else {
            throw corrupt("\(what) not wrapped in a one-field map")
        }
        return value
    }

    private mutating func readDocument(_ what: StaticString) throws(ModelError) -> ObjectValue {
        let length = try readLength(what, minimumBytesPerUnit: 1)
        let start = reader.offset
        let bytes = try readBytes(length, what)
        do {
            return try DocumentCodec.decode(bytes)
        } catch {
            throw ModelError(
                .dataLoss,
                "cannot decode a stored mutation batch: the \(what) at byte \(start) of \(reader.buffer.count) is damaged "
                    + "(\(error.message)); clear the cache to drop the pending writes it holds")
        }
    }

    private mutating func readFieldPath(_ what: StaticString) throws(ModelError) -> FieldPath {
        let segments = try readSegments(what)
        guard !segments.isEmpty else { throw corrupt("an empty \(what)") }
        return FieldPath(segments: segments)
    }

    private mutating func readSegments(_ what: StaticString) throws(ModelError) -> [String] {
        // A segment takes at least its length byte.
        let count = try readLength(what, minimumBytesPerUnit: 1)
        var segments: [String] = []
        segments.reserveCapacity(count)
        for _ in 0..<count {
            let length = try readLength(what, minimumBytesPerUnit: 1)
            guard let segment = String(validating: try readBytes(length, what), as: UTF8.self) else {
                throw corrupt("invalid UTF-8 in a \(what) segment")
            }
            segments.append(segment)
        }
        return segments
    }

    private mutating func readTimestamp(_ what: StaticString) throws(ModelError) -> Timestamp {
        let seconds = try readSignedVarint(what)
        guard let nanoseconds = Int32(exactly: try readSignedVarint(what)) else {
            throw corrupt("\(what) nanoseconds outside the 32-bit range")
        }
        return Timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    // MARK: Bytes

    private mutating func readByte(_ what: StaticString) throws(ModelError) -> UInt8 { try reader.readByte(what) }

    private mutating func readVarint(_ what: StaticString) throws(ModelError) -> UInt64 { try reader.readVarint(what) }

    private mutating func readSignedVarint(_ what: StaticString) throws(ModelError) -> Int64 {
        try reader.readSignedVarint(what)
    }

    private mutating func readLength(_ what: StaticString, minimumBytesPerUnit: Int) throws(ModelError) -> Int {
        try reader.readLength(what, minimumBytesPerUnit: minimumBytesPerUnit)
    }

    private mutating func readBytes(_ count: Int, _ what: StaticString) throws(ModelError) -> UnsafeRawBufferPointer {
        try reader.readBytes(count, what)
    }

    private func corrupt(_ problem: String) -> ModelError { reader.corrupt(problem) }
}
