import Testing
@testable import CairnModel

/// The checks `MutationBuilder` runs on every mutation it builds (`DocumentValidation.validate(_ mutation:)`):
/// whatever it accepts, the cache's document codec can store and read back.
@Suite("Mutation validation")
struct MutationValidationTests: MutationTesting {
    let builder = MutationBuilder(databaseID: DatabaseID(projectID: "demo"))

    /// `levels` user maps nested inside each other, built without recursion.
    func nestedUserMaps(_ levels: Int) -> UserValue {
        var value: UserValue = 1
        for _ in 0..<levels { value = .map(["n": value]) }
        return value
    }

    /// A dotted path of `count` segments.
    func longPath(_ count: Int) -> FieldPath { FieldPath(segments: (0..<count).map { "p\($0)" }) }

    @Test("set, merge and update refuse data nested deeper than 20 levels, and accept 20")
    func depthInEveryForm() throws {
        _ = try builder.set(key, data: ["f": nestedUserMaps(20)])
        _ = try builder.setMerge(key, data: ["f": nestedUserMaps(20)])
        _ = try builder.update(key, data: [field("f"): nestedUserMaps(20)])
        for levels in [21, 101, 5_000] {
            expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.set(key, data: ["f": nestedUserMaps(levels)]) }
            expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.setMerge(key, data: ["f": nestedUserMaps(levels)]) }
            expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.update(key, data: [field("f"): nestedUserMaps(levels)]) }
        }
    }

    @Test("an update path counts the maps it implies: 21 segments hold a scalar, 22 do not, even for a delete")
    func updatePathDepth() throws {
        _ = try builder.update(key, data: [longPath(21): 1])
        expectInvalidArgument("exceeds the maximum depth of 20", "(it reaches depth 21)") {
            _ = try builder.update(key, data: [longPath(22): 1])
        }
        expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.update(key, data: [longPath(102): 1]) }
        expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.update(key, data: [longPath(22): .delete]) }
        expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.update(key, data: [longPath(20): nestedUserMaps(2)]) }
    }

    @Test("transforms are checked at their path: the path's depth and an array operand's nesting")
    func transforms() throws {
        _ = try builder.update(key, data: [longPath(21): .serverTimestamp])
        expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.update(key, data: [longPath(22): .serverTimestamp]) }
        expectInvalidArgument("exceeds the maximum depth of 20") { _ = try builder.update(key, data: [longPath(30): .increment(.integer(1))]) }
        // arrayUnion at depth-19 path: the array is at depth 19, a map element at 20 is fine, one more map is not.
        _ = try builder.update(key, data: [longPath(19): .arrayUnion([nestedUserMaps(1)])])
        expectInvalidArgument("exceeds the maximum depth of 20") {
            _ = try builder.update(key, data: [longPath(19): .arrayUnion([nestedUserMaps(2)])])
        }
        // An operand's keys are values: reserved names pass, as in the Firebase SDKs.
        _ = try builder.update(key, data: [field("tags"): .arrayUnion([["__x__": 1]])])
    }

    @Test("mergeFields stores only the masked data, so unmasked data cannot make the stored write unreadable")
    func mergeFieldsDropUnmaskedData() throws {
        let mutation = try builder.setMerge(
            key, data: ["a": ["x": 1], "b": 2, "c": ["d": 3, "e": 4]], mergeFields: [field("a"), field("c.d")])
        guard case .patch(let value, _) = mutation.kind else { Issue.record("not a patch: \(mutation)"); return }
        #expect(value == object(["a": map(["x": .integer(1)]), "c": map(["d": .integer(3)])]))
    }

    @Test("delete refuses a reserved or over-long document ID, as every write does")
    func deleteChecksTheKey() throws {
        let reserved = DocumentKey(path: ResourcePath(segments: ["rooms", "__r__"]))
        expectInvalidArgument("Invalid document ID \"__r__\"") { _ = try builder.delete(reserved) }
        expectInvalidArgument("Invalid document ID \"__r__\"") { _ = try builder.set(reserved, data: [:]) }
        expectInvalidArgument("Invalid document ID \"__r__\"") { _ = try builder.update(reserved, data: [field("a"): 1]) }
        let long = DocumentKey(path: ResourcePath(segments: ["rooms", String(repeating: "x", count: 1_501)]))
        expectInvalidArgument("no longer than 1,500 bytes") { _ = try builder.delete(long) }
        _ = try builder.delete(DocumentKey(path: ResourcePath(segments: ["rooms", String(repeating: "x", count: 1_500)])))
    }

    @Test("a set over 1 MiB is refused with the server's message; an update's written fields count too")
    func size() throws {
        let half = String(repeating: "x", count: 524_259)
        let sized = DocumentKey(path: ResourcePath(segments: ["c", "d"]))  // name 20: 20 + 2 × (2 + 524,260) + 32
        _ = try builder.set(sized, data: ["a": .value(.string(half)), "b": .value(.string(half))])
        let message = "Document 'c/d' cannot be written because its size (1,048,577 bytes) exceeds the maximum "
            + "allowed size of 1,048,576 bytes."
        expectInvalidArgument(message) {
            _ = try builder.set(sized, data: ["a": .value(.string(half)), "b": .value(.string(half + "x"))])
        }
        expectInvalidArgument(message) {
            _ = try builder.update(sized, data: [field("a"): .value(.string(half)), field("b"): .value(.string(half + "x"))])
        }
    }

    @Test("every mutation the validation accepts encodes to bytes the codec decodes again")
    func acceptedMutationsRoundTrip() throws {
        let accepted = [
            try builder.set(key, data: ["f": nestedUserMaps(20), "t": .serverTimestamp]),
            try builder.update(key, data: [longPath(20): .arrayUnion([1])]),
            try builder.update(key, data: [longPath(20): nestedUserMaps(1)]),
            try builder.setMerge(key, data: ["a": [["m": nestedUserMaps(18)]]]),
        ]
        for mutation in accepted {
            let batch = MutationBatch(batchID: 1, localWriteTime: writeTime, baseMutations: [], mutations: [mutation])
            #expect(try MutationCodec.decode(MutationCodec.encode(batch)) == batch)
        }
    }
}
