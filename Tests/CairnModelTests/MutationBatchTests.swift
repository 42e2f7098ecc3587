import Testing
@testable import CairnModel

@Suite("MutationBatch on the local view")
struct MutationBatchTests: MutationTesting {
    @Test("keys lists each written document once, in order of first write")
    func keys() {
        let batch = MutationBatch(batchID: 1, localWriteTime: writeTime, mutations: [
            .delete(otherKey), .set(key, value: object([:])), .delete(otherKey),
        ])
        #expect(batch.keys == [otherKey, key])
    }

    @Test("a batch applies only its mutations for the given document, in order")
    func appliesInOrder() {
        let batch = MutationBatch(batchID: 1, localWriteTime: writeTime, mutations: [
            .set(key, value: object(["a": .integer(1)])),
            .set(otherKey, value: object(["other": .integer(1)])),
            .patch(key, value: object(["b": .integer(2)]), mask: mask("b")),
        ])
        var document: Document? = nil
        let mask = batch.applyToLocalDocument(&document, for: key)
        #expect(document?.data == object(["a": .integer(1), "b": .integer(2)]))
        #expect(mask == nil)
    }

    @Test("server timestamps in a batch use the batch's local write time")
    func localWriteTime() {
        let time = version(123)
        let batch = MutationBatch(batchID: 1, localWriteTime: time, mutations: [
            .set(key, value: object([:]), transforms: [transform("at", .serverTimestamp)]),
        ])
        var document: Document? = nil
        batch.applyToLocalDocument(&document, for: key)
        #expect(document?.data.value(at: field("at")) == .serverTimestamp(localWriteTime: time, previous: nil))
    }

    @Test("a base mutation pins an increment's start, so a server copy that already has it does not count twice")
    func basePinsIncrement() {
        let increment = Mutation.patch(key, value: object([:]), mask: FieldMask(),
                                       transforms: [transform("n", .increment(.integer(1)))])
        let localView = found(["n": .integer(9)])
        let base = increment.baseMutation(for: localView)
        #expect(base == .patch(key, value: object(["n": .integer(9)]), mask: mask("n"), precondition: .exists(true)))

        let batch = MutationBatch(batchID: 1, localWriteTime: writeTime, baseMutations: [base!], mutations: [increment])
        var echoed: Document? = found(["n": .integer(10)], version: 8)
        batch.applyToLocalDocument(&echoed, for: key)
        #expect(echoed?.data.value(at: field("n")) == .integer(10))
    }

    @Test("an increment's base is integer 0 when the field is not a number; idempotent transforms need none")
    func baseMutationRules() {
        let increment = Mutation.patch(key, value: object([:]), mask: FieldMask(), transforms: [
            transform("a.n", .increment(.double(0.5))), transform("at", .serverTimestamp),
        ])
        #expect(increment.baseMutation(for: found(["a": map(["n": .string("x")])]))
            == .patch(key, value: object(["a": map(["n": .integer(0)])]), mask: mask("a.n"), precondition: .exists(true)))
        #expect(increment.baseMutation(for: nil)?.fieldMask == mask("a.n"))
        let union = Mutation.set(key, value: object([:]), transforms: [transform("t", .arrayUnion([.integer(1)]))])
        #expect(union.baseMutation(for: found(["t": .array([])])) == nil)
        #expect(Mutation.delete(key).baseMutation(for: found([:])) == nil)
    }
}
