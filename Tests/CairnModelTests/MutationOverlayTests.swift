import Foundation
import Testing
@testable import CairnModel

@Suite("Overlay: calculating the net mutation")
struct MutationOverlayTests: MutationTesting {
    /// Applies `mutations` one by one from an empty mask and returns the document and overlay.
    func overlay(of mutations: [Mutation], on base: Document?) -> (document: Document?, overlay: Mutation?) {
        var document = base
        var mask: FieldMask? = FieldMask()
        for mutation in mutations {
            mask = mutation.applyToLocalView(&document, previousMask: mask, localWriteTime: writeTime)
        }
        return (document, Overlay.calculateOverlayMutation(for: document, mask: mask))
    }

    @Test("a document without local mutations has no overlay")
    func noMutations() {
        #expect(overlay(of: [], on: found(["a": .integer(1)])).overlay == nil)
        let failed = Mutation.patch(key, value: object(["a": .integer(1)]), mask: mask("a"))
        #expect(overlay(of: [failed], on: nil).overlay == nil)
    }

    @Test("after a delete the overlay is a delete; after a set it is a set of the whole result")
    func replaced() {
        #expect(overlay(of: [.delete(key, precondition: .exists(true))], on: found([:])).overlay == .delete(key))
        let set = Mutation.set(key, value: object(["a": .integer(1)]))
        let patch = Mutation.patch(key, value: object(["b": .integer(2)]), mask: mask("b"))
        #expect(overlay(of: [set, patch], on: nil).overlay
            == .set(key, value: object(["a": .integer(1), "b": .integer(2)]), precondition: .none))
    }

    @Test("after patches the overlay patches the changed fields with their final values, transforms included")
    func patches() {
        let first = Mutation.patch(key, value: object(["a": .integer(1)]), mask: mask("a"),
                                   transforms: [transform("n", .increment(.integer(5)))])
        let second = Mutation.patch(key, value: object([:]), mask: mask("gone"))
        let result = overlay(of: [first, second], on: found(["n": .integer(1), "gone": .integer(0), "kept": .integer(3)]))
        #expect(result.overlay == .patch(key, value: object(["a": .integer(1), "n": .integer(6)]),
                                         mask: mask("a", "gone", "n"), precondition: .none))
    }

    @Test("deleting a nested field written by an earlier patch writes its parent, so the empty map survives")
    func nestedDeleteKeepsParent() {
        let write = Mutation.patch(key, value: object(["foo": map(["bar": .integer(1)])]), mask: mask("foo.bar"),
                                   precondition: .none)
        let erase = Mutation.patch(key, value: object([:]), mask: mask("foo.bar"), precondition: .none)
        let result = overlay(of: [write, erase], on: nil)
        #expect(result.document?.data == object(["foo": map([:])]))
        #expect(result.overlay == .patch(key, value: object(["foo": map([:])]), mask: mask("foo"), precondition: .none))
    }
}

@Suite("Overlay: equivalence with replaying the batches")
struct MutationOverlayPropertyTests: MutationTesting {
    /// The base seed: `CAIRN_TEST_SEED` when set, else random; printed so that a failure can be replayed.
    static func baseSeed(_ test: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["CAIRN_TEST_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 0...UInt64(UInt32.max))
        print("\(test) seed: \(seed) (rerun with CAIRN_TEST_SEED=\(seed))")
        return seed
    }

    @Test("for random documents and batches, the overlay applied to the base equals the batches applied one by one")
    func overlayEqualsReplay() {
        let baseSeed = Self.baseSeed("overlay replay")
        for index in 0..<1000 {
            let seed = baseSeed &+ UInt64(index)
            var generator = MutationGenerator(seed: seed, key: key)
            let base = generator.baseDocument()
            let batches = generator.batches(on: base, writeTime: writeTime)

            var replayed = base
            var mask: FieldMask? = FieldMask()
            for batch in batches {
                mask = batch.applyToLocalDocument(&replayed, for: key, mutatedFields: mask)
            }
            let overlay = Overlay.calculateOverlayMutation(for: replayed, mask: mask)
            let viaOverlay = apply(overlay, to: base)
            guard expectSame(replayed, viaOverlay, seed: seed, base: base, batches: batches, overlay: overlay) else { return }
        }
    }

    @Test("folding each batch into the previous overlay, as the local store does on a write, loses nothing")
    func incrementalOverlayEqualsReplay() {
        let baseSeed = Self.baseSeed("incremental overlay")
        for index in 0..<1000 {
            let seed = baseSeed &+ UInt64(index)
            var generator = MutationGenerator(seed: seed, key: key)
            let base = generator.baseDocument()
            let batches = generator.batches(on: base, writeTime: writeTime)

            var replayed = base
            var overlay: Mutation?
            for batch in batches {
                batch.applyToLocalDocument(&replayed, for: key)
                var document = apply(overlay, to: base)
                let mask = batch.applyToLocalDocument(&document, for: key, mutatedFields: overlay.map(\.fieldMask) ?? FieldMask())
                overlay = Overlay.calculateOverlayMutation(for: document, mask: mask) ?? overlay
            }
            let viaOverlay = apply(overlay, to: base)
            guard expectSame(replayed, viaOverlay, seed: seed, base: base, batches: batches, overlay: overlay) else { return }
        }
    }

    func apply(_ overlay: Mutation?, to base: Document?) -> Document? {
        var document = base
        overlay?.applyToLocalView(&document, previousMask: nil, localWriteTime: version(1))
        return document
    }

    func expectSame(
        _ replayed: Document?, _ viaOverlay: Document?, seed: UInt64, base: Document?, batches: [MutationBatch],
        overlay: Mutation?
    ) -> Bool {
        let same = sameDocument(replayed, viaOverlay)
        #expect(same, """
            seed \(seed): base \(String(describing: base?.data)) state \(String(describing: base?.state))
            batches \(batches.map(\.mutations))
            replayed \(String(describing: replayed?.data)) overlay \(String(describing: overlay))
            via overlay \(String(describing: viaOverlay?.data))
            """)
        return same
    }

    func sameDocument(_ a: Document?, _ b: Document?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.state == b.state && a.version == b.version && identical(a.data, b.data)
            && a.hasLocalMutations == b.hasLocalMutations && a.hasCommittedMutations == b.hasCommittedMutations
    }
}

/// Random documents and mutation batches over a small pool of field paths, so that writes overlap, nest, replace
/// maps with scalars and back, and preconditions both hold and fail.
struct MutationGenerator {
    var random: SeededRandom
    let key: DocumentKey

    init(seed: UInt64, key: DocumentKey) {
        random = SeededRandom(seed: seed)
        self.key = key
    }

    static let names = ["a", "b", "c"]
    static let paths: [[String]] = [["a"], ["b"], ["c"], ["a", "b"], ["a", "c"], ["b", "a"], ["a", "b", "c"]]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ pool: [T]) -> T { pool[int(0...pool.count - 1)] }

    mutating func value(depth: Int) -> Value {
        switch int(0...(depth > 0 ? 7 : 5)) {
        case 0: return .null
        case 1: return .integer(Int64(int(-2...3)))
        case 2: return .double(pick([0.5, 1.0, -2.25]))
        case 3: return .string(pick(["x", "y"]))
        case 4: return .array((0..<int(0...3)).map { _ in .integer(Int64(int(0...3))) })
        case 5: return .boolean(chance(50))
        default: return .map(object(depth: depth - 1))
        }
    }

    mutating func object(depth: Int) -> ObjectValue {
        var object = ObjectValue()
        for name in Self.names where chance(50) {
            object.fields[name] = value(depth: depth)
        }
        return object
    }

    mutating func baseDocument() -> Document? {
        switch int(0...5) {
        case 0: return nil
        case 1: return Document(key: key, state: .noDocument, version: Timestamp(seconds: 3, nanoseconds: 0))
        case 2: return Document(key: key, state: .unknown, version: Timestamp(seconds: 3, nanoseconds: 0),
                                hasCommittedMutations: true)
        default: return Document(key: key, state: .found, version: Timestamp(seconds: 3, nanoseconds: 0),
                                 data: object(depth: 2))
        }
    }

    mutating func transforms() -> [FieldTransform] {
        (0..<int(0...2)).map { _ in
            let operation: TransformOperation = switch int(0...3) {
            case 0: .serverTimestamp
            case 1: .increment(chance(70) ? .integer(Int64(int(-2...2))) : .double(0.5))
            case 2: .arrayUnion((0..<int(0...2)).map { _ in .integer(Int64(int(0...3))) })
            default: .arrayRemove((0..<int(0...2)).map { _ in .integer(Int64(int(0...3))) })
            }
            return FieldTransform(field: FieldPath(segments: pick(Self.paths)), operation: operation)
        }
    }

    mutating func precondition() -> Precondition {
        pick([.none, .none, .exists(true), .exists(false), .updateTime(Timestamp(seconds: 3, nanoseconds: 0)),
              .updateTime(Timestamp(seconds: 0, nanoseconds: 0))])
    }

    mutating func mutation() -> Mutation {
        switch int(0...9) {
        case 0...2:
            return .set(key, value: object(depth: 2), precondition: precondition(), transforms: transforms())
        case 3...7:
            var value = ObjectValue()
            var fields: [FieldPath] = []
            for _ in 0..<int(0...3) {
                let path = FieldPath(segments: pick(Self.paths))
                fields.append(path)
                if chance(75) { value.set(self.value(depth: 1), at: path) }
            }
            return .patch(key, value: value, mask: FieldMask(fields), precondition: precondition(),
                          transforms: transforms())
        case 8:
            return .delete(key, precondition: pick([.none, .exists(true)]))
        default:
            return .verify(key, precondition: .exists(true))
        }
    }

    /// One to four batches; each carries the base mutations the local store would compute from the local view
    /// before it.
    mutating func batches(on base: Document?, writeTime: Timestamp) -> [MutationBatch] {
        var localView = base
        var batches: [MutationBatch] = []
        for id in 1...int(1...4) {
            let mutations = (0..<int(1...3)).map { _ in mutation() }.filter {
                if case .verify = $0.kind { return batches.isEmpty || chance(50) }
                return true
            }
            guard !mutations.isEmpty else { continue }
            let baseMutations = mutations.compactMap { $0.baseMutation(for: localView) }
            let time = Timestamp(seconds: writeTime.seconds + Int64(id), nanoseconds: 0)
            let batch = MutationBatch(batchID: id, localWriteTime: time, baseMutations: baseMutations, mutations: mutations)
            batch.applyToLocalDocument(&localView, for: key)
            batches.append(batch)
        }
        return batches
    }
}
