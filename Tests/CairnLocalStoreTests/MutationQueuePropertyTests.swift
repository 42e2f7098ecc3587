import CairnModel
import Testing
@testable import CairnLocalStore

/// The outbox as simply as it can be said: per user a list of batches, and the local view of a document is its
/// server copy with every pending batch of the current user applied in order. No overlays, no log.
struct NaiveOutbox {
    var remote: [DocumentKey: Document] = [:]
    var queues: [String: [MutationBatch]] = [:]
    var user = ""
    var nextBatchID = 1

    var pending: [MutationBatch] { queues[user] ?? [] }

    func localView(_ key: DocumentKey) -> Document? {
        var document = remote[key]
        for batch in pending { batch.applyToLocalDocument(&document, for: key) }
        return document
    }

    mutating func write(_ mutations: [Mutation], at time: Timestamp) -> MutationBatch {
        let base = mutations.compactMap { $0.baseMutation(for: localView($0.key)) }
        let batch = MutationBatch(batchID: nextBatchID, localWriteTime: time, baseMutations: base, mutations: mutations)
        nextBatchID += 1
        queues[user, default: []].append(batch)
        return batch
    }

    mutating func acknowledge(_ result: MutationBatchResult) {
        for key in result.batch.keys {
            var document = remote[key]
            guard (document?.version ?? Timestamp(seconds: 0, nanoseconds: 0)) < result.documentVersions[key]! else { continue }
            result.batch.applyToRemoteDocument(&document, for: key, batchResult: result)
            document?.readTime = result.commitVersion
            remote[key] = document
        }
        queues[user]!.removeAll { $0.batchID == result.batch.batchID }
    }
}

@Suite("MutationQueue: random operations agree with a naive model")
struct MutationQueuePropertyTests: MutationQueueTesting {
    let keys = ["rooms/a", "rooms/b", "rooms/c", "halls/h"].map(key)
    let users = ["", "ada"]

    func randomValue(_ random: inout OutboxRandom) -> Value {
        [.integer(Int64(random.below(6))), .double(0.5), .string("x"), .array([.integer(1), .string("x")]),
         .map(ObjectValue(["x": .integer(1)]))][random.below(5)]
    }

    func randomMutation(_ random: inout OutboxRandom) -> Mutation {
        let document = keys[random.below(keys.count)].path.canonicalString
        var fields: [String: Value] = [:]
        for _ in 0..<random.below(3) { fields[["n", "m", "arr", "map.x"][random.below(4)]] = randomValue(&random) }
        var transforms: [FieldTransform] = []
        if random.below(2) == 0 {
            transforms.append([
                increment("n", by: .integer(2)), increment("n", by: .double(1.5)), serverTimestamp("s"),
                FieldTransform(field: path("arr"), operation: .arrayUnion([.integer(1), .integer(2)])),
                FieldTransform(field: path("arr"), operation: .arrayRemove([.string("x")])),
            ][random.below(5)])
        }
        switch random.below(5) {
        case 0: return setData(document, fields.filter { !$0.key.contains(".") }, transforms: transforms)
        case 1: return updateData(document, fields, transforms: transforms)
        case 2:
            // An update that also deletes a field: the mask names it, the value has none.
            var mutation = updateData(document, fields, transforms: transforms)
            if case .patch(let value, let mask) = mutation.kind {
                mutation = .patch(mutation.key, value: value, mask: mask.union([path("m")]), transforms: transforms)
            }
            return mutation
        case 3: return mergeData(document, fields.filter { !$0.key.contains(".") }, transforms: transforms)
        default: return .delete(key(document))
        }
    }

    func expectAgreement(_ store: LocalStore, _ model: NaiveOutbox, _ context: String) throws {
        #expect(store.currentUser == model.user, "\(context)")
        #expect(store.pendingBatchIDs == model.pending.map(\.batchID), "\(context)")
        #expect(try store.nextMutationBatch(after: nil) == model.pending.first, "\(context)")
        for key in keys {
            let local = try store.localDocument(key)
            #expect(describe(local) == describe(model.localView(key)), "\(context): local \(key)")
            #expect(local?.data == model.localView(key)?.data, "\(context): local data of \(key)")
            #expect(describe(try store.remoteDocument(key)) == describe(model.remote[key]), "\(context): remote \(key)")
        }
        let query = try Query(path: ResourcePath(parsing: "rooms")).ordered(by: OrderBy(path("n"))).limited(to: 2)
        let expected = query.results(from: keys.compactMap(model.localView))
        #expect(try store.executeLocalQuery(query).map(describe) == expected.map(describe), "\(context): query")
    }

    @Test("writes, acknowledgements, rejections, user switches, server updates and restarts match the naive model",
          arguments: StoreMode.allCases)
    func randomOperations(mode: StoreMode) throws {
        for seed in 1...8 as ClosedRange<UInt64> {
            var random = OutboxRandom(seed: seed)
            let fixture = try RestartableStore(mode)
            var model = NaiveOutbox()
            var clock: Int64 = 10
            for step in 0..<60 {
                clock += 1
                let pending = model.pending
                var operation = "write"
                switch random.below(10) {
                case 0...3:
                    let mutations = (0...random.below(2)).map { _ in randomMutation(&random) }
                    let batch = model.write(mutations, at: time(clock))
                    #expect(try fixture.store.writeLocally(mutations, localWriteTime: time(clock)).batchID == batch.batchID)
                case 4...5 where !pending.isEmpty:
                    operation = "acknowledge"
                    let result = try acknowledgement(pending[0], at: clock, incrementResult: .integer(Int64(random.below(100))))
                    model.acknowledge(result)
                    try fixture.store.acknowledgeBatch(result)
                case 6 where !pending.isEmpty:
                    operation = "reject"
                    let batchID = pending[random.below(pending.count)].batchID
                    model.queues[model.user]!.removeAll { $0.batchID == batchID }
                    try fixture.store.rejectBatch(batchID)
                case 7:
                    operation = "switch user"
                    model.user = users[random.below(users.count)]
                    try fixture.store.switchUser(to: model.user)
                case 8 where mode == .persistent:
                    operation = "restart"
                    try fixture.restart()
                    model.user = ""
                default:
                    // A server update of a document no pending write of the current user touches: the outbox
                    // recomputes overlays on writes, acknowledgements and rejections; recomputing them when the
                    // server copy under a pending write changes is the remote-event path's job (not wired yet).
                    let touched = Set(pending.flatMap(\.keys))
                    guard let target = keys.filter({ !touched.contains($0) }).randomElement(using: &random) else { continue }
                    operation = "server update"
                    let version = clock + (random.below(3) == 0 ? 1000 : 0)
                    let document = found(target.path.canonicalString, version: version, ["n": .integer(Int64(random.below(9)))])
                    // The cache's rule: a newer version wins, and so does the server's copy of an acknowledged write.
                    let accepted = model.remote[target].map {
                        document.version > $0.version || (document.version == $0.version && $0.hasCommittedMutations)
                    } ?? true
                    if accepted { model.remote[target] = document }
                    try fixture.store.applyRemoteDocuments([document])
                }
                try expectAgreement(fixture.store, model, "seed \(seed), step \(step) (\(operation))")
            }
        }
    }
}

/// The shared seeded generator.
typealias OutboxRandom = SeededRandom
