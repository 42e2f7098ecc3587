import Testing
@testable import CairnModel

/// Random mutation batches of every kind: sets, patches with masks, deletes, verifies, every precondition,
/// every transform (increments of integers and doubles, array unions and removals, server timestamps), and base
/// mutations, with values from ``ValueGenerator``.
struct MutationBatchGenerator {
    var values: ValueGenerator

    init(seed: UInt64) { values = ValueGenerator(seed: seed) }

    mutating func batch() -> MutationBatch {
        let id = values.chance(1, in: 4) ? values.pick([0, 1, 127, 128, Int.max]) : Int.random(in: 1...1_000_000, using: &values.random)
        return MutationBatch(
            batchID: id, localWriteTime: values.timestamp(),
            baseMutations: (0..<Int.random(in: 0...2, using: &values.random)).map { _ in mutation() },
            mutations: (0..<Int.random(in: 1...4, using: &values.random)).map { _ in mutation() })
    }

    mutating func mutation() -> Mutation {
        let key = DocumentKey(path: ResourcePath(segments: (0..<values.pick([2, 4])).map { _ in values.pick(ValueGenerator.segments) }))
        let precondition = self.precondition()
        switch Int.random(in: 0..<4, using: &values.random) {
        case 0:
            return .set(key, value: values.object(depth: 2, maxCount: 3), precondition: precondition, transforms: transforms())
        case 1:
            let mask = FieldMask((0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.fieldPath() })
            return .patch(key, value: values.object(depth: 2, maxCount: 3), mask: mask, precondition: precondition, transforms: transforms())
        case 2:
            return .delete(key, precondition: precondition)
        default:
            return .verify(key, precondition: precondition)
        }
    }

    mutating func precondition() -> Precondition {
        switch Int.random(in: 0..<4, using: &values.random) {
        case 0: .none
        case 1: .exists(false)
        case 2: .exists(true)
        default: .updateTime(values.timestamp())
        }
    }

    mutating func transforms() -> [FieldTransform] {
        (0..<Int.random(in: 0...3, using: &values.random)).map { _ in
            let operation: TransformOperation
            switch Int.random(in: 0..<5, using: &values.random) {
            case 0: operation = .serverTimestamp
            case 1: operation = .increment(.integer(values.pick(ValueGenerator.integers)))
            case 2: operation = .increment(.double(values.double()))
            case 3: operation = .arrayUnion((0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.value(depth: 1) })
            default: operation = .arrayRemove((0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.value(depth: 1) })
            }
            return FieldTransform(field: values.fieldPath(), operation: operation)
        }
    }
}

@Suite("Mutation codec")
struct MutationCodecTests {
    let roomA = DocumentKey(path: ResourcePath(segments: ["rooms", "a"]))

    /// Decodes `bytes`; any error must be `dataLoss`. Returns whether it threw.
    @discardableResult
    func decodeSurvives(_ bytes: [UInt8]) -> Bool {
        do {
            _ = try MutationCodec.decode(bytes)
            return false
        } catch {
            #expect(error.code == .dataLoss)
            return true
        }
    }

    func expectDataLoss(_ bytes: [UInt8], mentioning phrase: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let batch = try MutationCodec.decode(bytes)
            Issue.record("decoded \(batch) from damaged bytes", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .dataLoss, sourceLocation: sourceLocation)
            #expect(error.message.contains(phrase), "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test("the worked example of the grammar comment encodes byte for byte")
    func workedExample() throws {
        let batch = MutationBatch(
            batchID: 7, localWriteTime: Timestamp(seconds: 100, nanoseconds: 0),
            mutations: [.set(roomA, value: ObjectValue(["n": .integer(1)]))])
        let expected: [UInt8] = [
            0x01, 0x0E, 0xC8, 0x01, 0x00, 0x00, 0x01,
            0x01, 0x02, 0x05, 0x72, 0x6F, 0x6F, 0x6D, 0x73, 0x01, 0x61, 0x00,
            0x07, 0x01, 0x01, 0x01, 0x6E, 0x02, 0x03, 0x02, 0x00,
        ]
        #expect(MutationCodec.encode(batch) == expected)
        #expect(try MutationCodec.decode(expected) == batch)
    }

    @Test("random batches of every mutation kind, precondition and transform round-trip exactly")
    func roundTrip() throws {
        var generator = MutationBatchGenerator(seed: 11)
        var kinds = Set<String>()
        for _ in 0..<600 {
            let batch = generator.batch()
            let decoded = try MutationCodec.decode(MutationCodec.encode(batch))
            #expect(decoded == batch)
            #expect(MutationCodec.encode(decoded) == MutationCodec.encode(batch), "encoding is deterministic")
            for mutation in batch.mutations + batch.baseMutations {
                kinds.insert("\(mutation.kind)".prefix(while: { $0 != "(" }).description)
                for transform in mutation.fieldTransforms { kinds.insert("\(transform.operation)".prefix(while: { $0 != "(" }).description) }
            }
        }
        #expect(kinds == ["set", "patch", "delete", "verify", "serverTimestamp", "increment", "arrayUnion", "arrayRemove"])
    }

    @Test("every truncation of a valid encoding is refused with dataLoss")
    func truncation() {
        var generator = MutationBatchGenerator(seed: 12)
        for _ in 0..<40 {
            let bytes = MutationCodec.encode(generator.batch())
            for length in 0..<bytes.count {
                #expect(decodeSurvives(Array(bytes[..<length])), "a prefix of \(length) of \(bytes.count) bytes decoded")
            }
            #expect(decodeSurvives(bytes + [0]), "a trailing byte is refused")
        }
    }

    @Test("changing any byte never crashes: the decoder returns a batch or throws dataLoss")
    func byteFlips() {
        var generator = MutationBatchGenerator(seed: 13)
        for _ in 0..<40 {
            let bytes = MutationCodec.encode(generator.batch())
            for offset in bytes.indices {
                for replacement: UInt8 in [bytes[offset] ^ 0x01, bytes[offset] ^ 0x80, 0x00, 0xFF] {
                    var damaged = bytes
                    damaged[offset] = replacement
                    decodeSurvives(damaged)
                }
            }
        }
    }

    @Test("random garbage never crashes")
    func garbage() {
        var random = SeededRandom(seed: 14)
        for _ in 0..<3000 {
            var bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if !bytes.isEmpty && Bool.random(using: &random) { bytes[0] = MutationCodec.formatVersion }
            decodeSurvives(bytes)
        }
    }

    @Test("a non-numeric increment operand is damage, not a crash later")
    func nonNumericIncrement() {
        let batch = MutationBatch(
            batchID: 1, localWriteTime: Timestamp(seconds: 1, nanoseconds: 0),
            mutations: [.set(roomA, value: ObjectValue(), transforms: [
                FieldTransform(field: FieldPath(segments: ["n"]), operation: .increment(.string("1"))),
            ])])
        expectDataLoss(MutationCodec.encode(batch), mentioning: "increment operand that is not a number")
    }

    @Test("an empty batch, a newer version, unknown tags and bad paths are refused with a message saying what")
    func specificDamage() {
        // version, batch id 7, time 0 s 0 ns, no base mutations, then the mutations.
        let head: [UInt8] = [0x01, 0x0E, 0x00, 0x00, 0x00]
        let key: [UInt8] = [0x02, 0x05, 0x72, 0x6F, 0x6F, 0x6D, 0x73, 0x01, 0x61]
        expectDataLoss(head + [0x00], mentioning: "a batch without mutations")
        expectDataLoss([0x02] + head.dropFirst() + [0x00], mentioning: "newer Cairn")
        expectDataLoss([0x00], mentioning: "not a Cairn mutation batch")
        expectDataLoss(head + [0x01, 0x09] + key + [0x00], mentioning: "unknown mutation kind 9")
        expectDataLoss(head + [0x01, 0x03] + key + [0x07], mentioning: "unknown precondition 7")
        expectDataLoss(head + [0x01, 0x03, 0x01, 0x05, 0x72, 0x6F, 0x6F, 0x6D, 0x73, 0x00], mentioning: "not a document path")
        expectDataLoss(head + [0x01, 0x03, 0x02, 0x01, 0x61, 0x00, 0x00, 0x00], mentioning: "not a document path")
        // A patch of {} whose mask holds the empty field path.
        expectDataLoss(head + [0x01, 0x02] + key + [0x00, 0x02, 0x01, 0x00, 0x01, 0x00, 0x00], mentioning: "empty mask path")
        // A set of {} with an array union whose elements are not an array: {"v": 1}.
        expectDataLoss(
            head + [0x01, 0x01] + key + [0x00, 0x02, 0x01, 0x00, 0x01, 0x01, 0x01, 0x6E, 0x03, 0x07, 0x01, 0x01, 0x01, 0x76, 0x02, 0x03, 0x02],
            mentioning: "not an array")
        // A set whose value is not a valid document.
        expectDataLoss(head + [0x01, 0x01] + key + [0x00, 0x02, 0x01, 0x09, 0x00], mentioning: "set value")
    }
}
