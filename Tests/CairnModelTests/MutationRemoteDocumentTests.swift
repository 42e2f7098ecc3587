import Testing
@testable import CairnModel

@Suite("Mutation: acknowledged by the server")
struct MutationRemoteDocumentTests: MutationTesting {
    @Test("an acknowledged set stores the value at the write's version with committed mutations")
    func set() throws {
        let document = try #require(remote(.set(key, value: object(["a": .integer(1)])), to: found(["old": .null]),
                                           result: MutationResult(version: version(20))))
        #expect(document.state == .found)
        #expect(document.version == version(20))
        #expect(document.data == object(["a": .integer(1)]))
        #expect(document.hasCommittedMutations)
        #expect(!document.hasLocalMutations)
    }

    @Test("an acknowledged set creates a document the cache did not hold")
    func setCreates() {
        let document = remote(.set(key, value: object([:])), to: nil, result: MutationResult(version: version(20)))
        #expect(document?.state == .found)
        #expect(document?.key == key)
    }

    @Test("an acknowledged patch applies to the cached copy at the write's version")
    func patch() {
        let patch = Mutation.patch(key, value: object(["a": .integer(2)]), mask: mask("a", "gone"))
        let document = remote(patch, to: found(["a": .integer(1), "gone": .integer(0), "kept": .integer(3)]),
                              result: MutationResult(version: version(20)))
        #expect(document?.data == object(["a": .integer(2), "kept": .integer(3)]))
        #expect(document?.version == version(20))
        #expect(document?.hasCommittedMutations == true)
    }

    @Test("an acknowledged patch whose precondition fails on the cached copy leaves an unknown document")
    func patchOnStaleCopy() throws {
        let patch = Mutation.patch(key, value: object(["a": .integer(2)]), mask: mask("a"))
        for stale in [nil, tombstone()] as [Document?] {
            let document = try #require(remote(patch, to: stale, result: MutationResult(version: version(20))))
            #expect(document.state == .unknown)
            #expect(document.version == version(20))
            #expect(document.data == object([:]))
            #expect(document.hasCommittedMutations)
        }
    }

    @Test("an acknowledged merge creates a missing document")
    func mergeCreates() {
        let merge = Mutation.patch(key, value: object(["a": .integer(2)]), mask: mask("a"), precondition: .none)
        let document = remote(merge, to: nil, result: MutationResult(version: version(20)))
        #expect(document?.state == .found)
        #expect(document?.data == object(["a": .integer(2)]))
    }

    @Test("an acknowledged delete leaves a tombstone at the commit version")
    func delete() {
        let document = remote(.delete(key), to: found(["a": .integer(1)]), result: MutationResult(version: version(20)))
        #expect(document?.state == .noDocument)
        #expect(document?.version == version(20))
        #expect(document?.hasCommittedMutations == true)
    }

    @Test("server timestamps and increments take the server's results; array transforms are recomputed")
    func transformResults() {
        let patch = Mutation.patch(key, value: object([:]), mask: FieldMask(), transforms: [
            transform("at", .serverTimestamp),
            transform("n", .increment(.integer(1))),
            transform("tags", .arrayUnion([.string("b")])),
        ])
        let result = MutationResult(version: version(20), transformResults: [.timestamp(version(19)), .integer(7), .null])
        let document = remote(patch, to: found(["n": .integer(1), "tags": .array([.string("a")])]), result: result)
        #expect(document?.data == object([
            "at": .timestamp(version(19)), "n": .integer(7), "tags": .array([.string("a"), .string("b")]),
        ]))
    }

    @Test("an acknowledged set's array transform starts from the set's data, as the server's did")
    func setArrayTransform() {
        let set = Mutation.set(key, value: object([:]), transforms: [transform("tags", .arrayUnion([.string("b")]))])
        let document = remote(set, to: found(["tags": .array([.string("a")])]),
                              result: MutationResult(version: version(20), transformResults: [.null]))
        #expect(document?.data == object(["tags": .array([.string("b")])]))
    }

    @Test("an acknowledged verify changes nothing")
    func verify() {
        let document = remote(.verify(key, precondition: .exists(true)), to: found(["a": .integer(1)], version: 7),
                              result: MutationResult(version: version(20)))
        #expect(document?.version == version(7))
        #expect(document?.hasCommittedMutations == false)
    }
}

@Suite("MutationBatchResult")
struct MutationBatchResultTests: MutationTesting {
    var batch: MutationBatch {
        MutationBatch(batchID: 5, localWriteTime: writeTime, mutations: [
            .set(key, value: object([:]), transforms: [transform("at", .serverTimestamp)]),
            .delete(otherKey),
            .patch(key, value: object(["a": .integer(1)]), mask: mask("a")),
        ])
    }

    @Test("each document's version is the one its last write in the batch produced")
    func documentVersions() throws {
        let ack = try MutationBatchResult(batch: batch, commitVersion: version(30), mutationResults: [
            MutationResult(version: version(28), transformResults: [.timestamp(version(30))]),
            MutationResult(version: version(30)),
            MutationResult(version: version(29)),
        ])
        #expect(ack.documentVersions == [key: version(29), otherKey: version(30)])
    }

    @Test("a result count that does not match the batch is data loss")
    func wrongResultCount() {
        #expect(throws: ModelError(.dataLoss, "The server acknowledged batch 5 with 1 write results, but the batch has 3 writes; the write response does not belong to this batch.")) {
            try MutationBatchResult(batch: batch, commitVersion: version(30),
                                    mutationResults: [MutationResult(version: version(30))])
        }
    }

    @Test("a transform-result count that does not match the mutation is data loss")
    func wrongTransformCount() {
        #expect(throws: ModelError.self) {
            try MutationBatchResult(batch: batch, commitVersion: version(30), mutationResults: [
                MutationResult(version: version(28)), MutationResult(version: version(30)),
                MutationResult(version: version(29)),
            ])
        }
    }

    @Test("applying an acknowledged batch applies only the writes to the document, in order")
    func applyBatch() throws {
        let ack = try MutationBatchResult(batch: batch, commitVersion: version(30), mutationResults: [
            MutationResult(version: version(28), transformResults: [.timestamp(version(30))]),
            MutationResult(version: version(30)),
            MutationResult(version: version(29)),
        ])
        var document: Document? = found(["old": .integer(0)])
        batch.applyToRemoteDocument(&document, for: key, batchResult: ack)
        #expect(document?.data == object(["at": .timestamp(version(30)), "a": .integer(1)]))
        #expect(document?.version == version(29))
        #expect(document?.hasCommittedMutations == true)
    }
}
