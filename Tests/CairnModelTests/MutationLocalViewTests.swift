import Testing
@testable import CairnModel

@Suite("Mutation: set on the local view")
struct MutationSetLocalViewTests: MutationTesting {
    @Test("a set creates a missing document with local mutations and an unset version")
    func createsMissing() throws {
        let (document, mask) = local(.set(key, value: object(["a": .integer(1)])), to: nil)
        let result = try #require(document)
        #expect(result.state == .found)
        #expect(result.data == object(["a": .integer(1)]))
        #expect(result.hasLocalMutations)
        #expect(!result.hasCommittedMutations)
        #expect(result.version == Timestamp(seconds: 0, nanoseconds: 0))
        #expect(mask == nil)
    }

    @Test("a set replaces every field of an existing document")
    func replaces() {
        let (document, _) = local(.set(key, value: object(["b": .integer(2)])), to: found(["a": .integer(1)]))
        #expect(document?.data == object(["b": .integer(2)]))
    }

    @Test("a set over a tombstone or an unknown document creates it")
    func overTombstone() {
        #expect(local(.set(key, value: object([:])), to: tombstone()).document?.state == .found)
        let unknown = Document(key: key, state: .unknown, version: version(3), hasCommittedMutations: true)
        let (document, _) = local(.set(key, value: object(["a": .null])), to: unknown)
        #expect(document?.state == .found)
        #expect(document?.hasCommittedMutations == false)
    }

    @Test("a set whose precondition fails changes nothing and keeps the previous mask")
    func failedPrecondition() {
        let before = found(["a": .integer(1)])
        let previous = mask("x")
        let (document, mask) = local(
            .set(key, value: object(["b": .integer(2)]), precondition: .exists(false)), to: before,
            previousMask: previous)
        #expect(document?.data == before.data)
        #expect(document?.version == before.version)
        #expect(document?.hasLocalMutations == false)
        #expect(mask == previous)
        #expect(local(.set(key, value: object([:]), precondition: .exists(true)), to: nil).document == nil)
    }

    @Test("a set's transforms apply to the written data, as on the server; a server timestamp remembers the old value")
    func transformsAfterWrite() throws {
        let before = found(["n": .integer(5), "tags": .array([.string("old")]), "at": .string("then")])
        let mutation = Mutation.set(key, value: object(["name": .string("x")]), transforms: [
            transform("n", .increment(.integer(1))),
            transform("tags", .arrayUnion([.string("new")])),
            transform("at", .serverTimestamp),
        ])
        let data = try #require(local(mutation, to: before).document).data
        #expect(data.value(at: field("n")) == .integer(1))
        #expect(data.value(at: field("tags")) == .array([.string("new")]))
        #expect(data.value(at: field("name")) == .string("x"))
        guard case .serverTimestamp(let time, let previous)? = data.value(at: field("at")) else {
            Issue.record("expected a pending server timestamp")
            return
        }
        #expect(time == writeTime)
        #expect(previous == .string("then"))
    }
}

@Suite("Mutation: patch on the local view")
struct MutationPatchLocalViewTests: MutationTesting {
    @Test("a patch writes the masked fields, deletes masked fields the value lacks, and keeps the rest")
    func writesMask() {
        let before = found(["a": map(["b": .integer(1), "c": .integer(2)]), "d": .integer(3), "e": .integer(4)])
        let patch = Mutation.patch(key, value: object(["a": map(["b": .integer(10), "z": .integer(99)])]),
                                   mask: mask("a.b", "d"))
        let (document, mask) = local(patch, to: before)
        #expect(document?.data == object(["a": map(["b": .integer(10), "c": .integer(2)]), "e": .integer(4)]))
        #expect(document?.hasLocalMutations == true)
        #expect(mask == self.mask("a.b", "d"))
    }

    @Test("a patch on a missing document does nothing under update's exists(true) precondition")
    func missingWithExists() {
        let patch = Mutation.patch(key, value: object(["a": .integer(1)]), mask: mask("a"))
        #expect(local(patch, to: nil).document == nil)
        #expect(local(patch, to: nil).mask == FieldMask())
        let (document, _) = local(patch, to: tombstone())
        #expect(document?.state == .noDocument)
        #expect(document?.hasLocalMutations == false)
    }

    @Test("a patch without precondition (a merge) creates a missing document with just its fields")
    func mergeCreates() {
        let merge = Mutation.patch(key, value: object(["a": map(["b": .integer(1)])]), mask: mask("a.b"),
                                   precondition: .none)
        let (document, mask) = local(merge, to: nil)
        #expect(document?.state == .found)
        #expect(document?.data == object(["a": map(["b": .integer(1)])]))
        #expect(mask == self.mask("a.b"))
    }

    @Test("a nested patch replaces a non-map parent with a map")
    func replacesPrimitiveParent() {
        let patch = Mutation.patch(key, value: object(["a": map(["b": .integer(1)])]), mask: mask("a.b"))
        #expect(local(patch, to: found(["a": .string("x")])).document?.data == object(["a": map(["b": .integer(1)])]))
    }

    @Test("the mask accumulates the patch's mask and its transformed fields; nil stays nil")
    func maskAccumulates() {
        let patch = Mutation.patch(key, value: object(["a": .integer(1)]), mask: mask("a"),
                                   transforms: [transform("n", .increment(.integer(1)))])
        #expect(local(patch, to: found([:]), previousMask: mask("z")).mask == mask("a", "n", "z"))
        #expect(local(patch, to: found([:]), previousMask: nil).mask == nil)
    }

    @Test("a patch with an updateTime precondition applies only at exactly that version")
    func updateTime() {
        let patch = Mutation.patch(key, value: object(["a": .integer(1)]), mask: mask("a"),
                                   precondition: .updateTime(version(7)))
        #expect(local(patch, to: found([:], version: 7)).document?.data == object(["a": .integer(1)]))
        #expect(local(patch, to: found([:], version: 8)).document?.data == object([:]))
    }

    @Test("a patch's increment counts from the current value")
    func incrementFromCurrent() {
        let patch = Mutation.patch(key, value: object([:]), mask: FieldMask(),
                                   transforms: [transform("stats.n", .increment(.integer(2)))])
        let (document, _) = local(patch, to: found(["stats": map(["n": .integer(40)])]))
        #expect(document?.data.value(at: field("stats.n")) == .integer(42))
    }
}

@Suite("Mutation: delete and verify on the local view")
struct MutationDeleteLocalViewTests: MutationTesting {
    @Test("a delete turns the document into a tombstone with local mutations")
    func deletes() {
        let (document, mask) = local(.delete(key), to: found(["a": .integer(1)]))
        #expect(document?.state == .noDocument)
        #expect(document?.data == object([:]))
        #expect(document?.hasLocalMutations == true)
        #expect(document?.version == Timestamp(seconds: 0, nanoseconds: 0))
        #expect(mask == nil)
        #expect(local(.delete(key), to: nil).document?.state == .noDocument)
    }

    @Test("a delete whose precondition fails changes nothing")
    func failedPrecondition() {
        let (document, mask) = local(.delete(key, precondition: .exists(true)), to: nil, previousMask: self.mask("a"))
        #expect(document == nil)
        #expect(mask == self.mask("a"))
    }

    @Test("a verify never changes the local view")
    func verifyIsInert() {
        let before = found(["a": .integer(1)])
        let (document, mask) = local(.verify(key, precondition: .updateTime(version(7))), to: before)
        #expect(document?.data == before.data)
        #expect(document?.hasLocalMutations == false)
        #expect(mask == FieldMask())
    }
}

@Suite("Precondition")
struct MutationPreconditionTests: MutationTesting {
    @Test("exists and updateTime see only found documents as existing")
    func validity() {
        let unknown = Document(key: key, state: .unknown, version: version(7))
        for missing in [nil, tombstone(), unknown] as [Document?] {
            #expect(Precondition.exists(false).isValid(for: missing))
            #expect(!Precondition.exists(true).isValid(for: missing))
            #expect(!Precondition.updateTime(version(7)).isValid(for: missing))
            #expect(Precondition.none.isValid(for: missing))
        }
        #expect(Precondition.exists(true).isValid(for: found([:])))
        #expect(Precondition.updateTime(version(7)).isValid(for: found([:], version: 7)))
        #expect(!Precondition.updateTime(version(6)).isValid(for: found([:], version: 7)))
    }
}
