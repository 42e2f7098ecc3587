import CairnModel
import Testing
@testable import CairnLocalStore

@Suite("MutationQueue: local writes show in the local view")
struct MutationQueueLocalWriteTests: MutationQueueTesting {
    @Test("a set of an unknown document creates it locally at version 0 with local mutations; the server copy stays unknown",
          arguments: StoreMode.allCases)
    func setCreates(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        let (batchID, changed) = try store.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(100))
        #expect(batchID == 1)
        let local = try #require(try store.localDocument(key("rooms/a")))
        #expect(local.exists && local.version == time(0) && local.hasLocalMutations && local.data == object(["n": .integer(1)]))
        #expect(describe(changed[key("rooms/a")] ?? nil) == describe(local))
        #expect(try store.remoteDocument(key("rooms/a")) == nil)
        #expect(store.pendingBatchIDs == [1] && store.highestUnacknowledgedBatchID == 1)
    }

    @Test("a merge writes only its fields and may create; an update patches an existing document and skips a missing one",
          arguments: StoreMode.allCases)
    func mergeAndUpdate(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["name": .string("A"), "size": .integer(3)])])
        let (_, changed) = try store.writeLocally(
            [updateData("rooms/a", ["size": .integer(4), "address.city": .string("Oslo")]),
             mergeData("rooms/b", ["x": .integer(1)]), updateData("rooms/c", ["x": .integer(1)])],
            localWriteTime: time(100))
        let a = try #require(try store.localDocument(key("rooms/a")))
        #expect(a.data == object(["name": .string("A"), "size": .integer(4), "address": .map(object(["city": .string("Oslo")]))]))
        #expect(a.hasLocalMutations && a.version == time(0))
        #expect(try store.localDocument(key("rooms/b"))?.data == object(["x": .integer(1)]))
        #expect(try store.localDocument(key("rooms/c")) == nil, "an update of a document the cache does not hold fails locally")
        #expect(changed.count == 3 && changed[key("rooms/c")]! == nil)
        #expect(try store.remoteDocument(key("rooms/a"))?.data.fields["size"] == .integer(3))
    }

    @Test("a local delete is a noDocument with local mutations, and queries leave the document out", arguments: StoreMode.allCases)
    func delete(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["n": .integer(1)]), found("rooms/b", version: 5, [:])])
        try store.writeLocally([.delete(key("rooms/a"))], localWriteTime: time(100))
        let deleted = try #require(try store.localDocument(key("rooms/a")))
        #expect(deleted.state == .noDocument && deleted.hasLocalMutations)
        #expect(try store.executeLocalQuery(Query(path: ResourcePath(parsing: "rooms"))).map(\.key) == [key("rooms/b")])
        #expect(try store.remoteDocument(key("rooms/a"))?.exists == true)
    }

    @Test("a server timestamp shows the local write time, remembering the previous value", arguments: StoreMode.allCases)
    func serverTimestampEstimate(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["t": .integer(1)])])
        try store.writeLocally([updateData("rooms/a", [:], transforms: [serverTimestamp("t")])], localWriteTime: time(100))
        #expect(try store.localDocument(key("rooms/a"))?.data.fields["t"] == .serverTimestamp(localWriteTime: time(100), previous: .integer(1)))
    }

    @Test("increments add to the local value, are pinned by base mutations, and a server echo does not count them twice",
          arguments: StoreMode.allCases)
    func increments(mode: StoreMode) throws {
        let fixture = try RestartableStore(mode)
        try fixture.store.applyRemoteDocuments([found("rooms/a", version: 5, ["n": .integer(41)])])
        try fixture.store.writeLocally([updateData("rooms/a", [:], transforms: [increment("n", by: .integer(1))])], localWriteTime: time(100))
        #expect(try fixture.store.localDocument(key("rooms/a"))?.data.fields["n"] == .integer(42))
        try fixture.store.writeLocally([updateData("rooms/a", [:], transforms: [increment("n", by: .double(0.5))])], localWriteTime: time(101))
        #expect(try fixture.store.localDocument(key("rooms/a"))?.data.fields["n"] == .double(42.5))
        let first = try #require(try fixture.store.nextMutationBatch(after: nil))
        #expect(first.baseMutations == [.patch(key("rooms/a"), value: object(["n": .integer(41)]), mask: FieldMask([path("n")]))])
        // The server applied the first increment and the watch stream delivers it before the acknowledgement.
        try fixture.store.applyRemoteDocuments([found("rooms/a", version: 6, ["n": .integer(42)])])
        #expect(try fixture.store.localDocument(key("rooms/a"))?.data.fields["n"] == .double(42.5))
        if mode == .persistent {
            try fixture.restart()
            #expect(try fixture.store.localDocument(key("rooms/a"))?.data.fields["n"] == .double(42.5))
        }
    }

    @Test("later batches apply on top of earlier ones, in batch order", arguments: StoreMode.allCases)
    func batchOrder(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        try store.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(100))
        try store.writeLocally([updateData("rooms/a", ["n": .integer(2)])], localWriteTime: time(101))
        try store.writeLocally([mergeData("rooms/a", ["m": .integer(3)])], localWriteTime: time(102))
        #expect(try store.localDocument(key("rooms/a"))?.data == object(["n": .integer(2), "m": .integer(3)]))
        #expect(store.mutationQueue.overlays[key("rooms/a")]?.largestBatchID == 3)
    }

    @Test("a local query merges cached documents with local writes before filtering, ordering and limiting",
          arguments: StoreMode.allCases)
    func localQuery(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        try store.applyRemoteDocuments([
            found("rooms/a", version: 1, ["size": .integer(3)]), found("rooms/b", version: 1, ["size": .integer(9)]),
            found("rooms/c", version: 1, ["size": .integer(5)]),
        ])
        let query = try Query(path: ResourcePath(parsing: "rooms"))
            .filtered(by: .field(FieldFilter(path("size"), .greaterThan, .integer(2))))
            .ordered(by: OrderBy(path("size"))).limited(to: 2)
        #expect(try store.executeLocalQuery(query).map(\.key) == store.executeQuery(query).map(\.key))
        try store.writeLocally(
            [updateData("rooms/a", ["size": .integer(1)]), setData("rooms/d", ["size": .integer(4)]),
             setData("halls/x", ["size": .integer(4)])],
            localWriteTime: time(100))
        let results = try store.executeLocalQuery(query)
        #expect(results.map(\.key) == [key("rooms/d"), key("rooms/c")])
        #expect(results.map(\.hasLocalMutations) == [true, false])
        let group = try store.executeLocalQuery(Query(path: .root, collectionGroup: "halls"))
        #expect(group.map(\.key) == [key("halls/x")])
    }

    @Test("an empty batch is refused with invalidArgument and adds nothing")
    func emptyBatch() throws {
        let store = keepingMemoryStore()
        expectError(.invalidArgument) { try store.writeLocally([], localWriteTime: time(1)) }
        #expect(store.pendingBatchIDs.isEmpty && store.mutationQueue.nextBatchID == 1)
    }
}

@Suite("MutationQueue: acknowledgement and rejection")
struct MutationQueueAckTests: MutationQueueTesting {
    @Test("an acknowledged batch leaves the outbox; its document is at the commit version with committed mutations",
          arguments: StoreMode.allCases)
    func acknowledge(mode: StoreMode) throws {
        let fixture = try RestartableStore(mode)
        try fixture.store.writeLocally([setData("rooms/a", ["n": .integer(1)], transforms: [serverTimestamp("t")])], localWriteTime: time(100))
        let batch = try #require(try fixture.store.nextMutationBatch(after: nil))
        let changed = try fixture.store.acknowledgeBatch(acknowledgement(batch, at: 200))
        let expected = "rooms/a found v200.0 r200 {n:1,t:time(200,0)} committed"
        #expect(describe(try fixture.store.remoteDocument(key("rooms/a"))) == expected)
        #expect(describe(try fixture.store.localDocument(key("rooms/a"))) == expected)
        #expect(describe(changed[key("rooms/a")] ?? nil) == expected)
        #expect(fixture.store.pendingBatchIDs.isEmpty && fixture.store.highestUnacknowledgedBatchID == nil)
        if mode == .persistent {
            try fixture.restart()
            #expect(describe(try fixture.store.localDocument(key("rooms/a"))) == expected)
            #expect(fixture.store.pendingBatchIDs.isEmpty)
        }
    }

    @Test("an acknowledgement never replaces a cached server copy at the write's version or newer")
    func newerServerCopyWins() throws {
        let store = keepingMemoryStore()
        try store.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(100))
        try store.applyRemoteDocuments([found("rooms/a", version: 300, ["n": .integer(7)])])
        try store.acknowledgeBatch(acknowledgement(try #require(try store.nextMutationBatch(after: nil)), at: 200))
        #expect(describe(try store.localDocument(key("rooms/a"))) == "rooms/a found v300.0 r300 {n:7}")
    }

    @Test("the server's transform results replace the local estimates")
    func transformResults() throws {
        let store = keepingMemoryStore()
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["n": .integer(41)])])
        try store.writeLocally([updateData("rooms/a", [:], transforms: [increment("n", by: .integer(1))])], localWriteTime: time(100))
        let batch = try #require(try store.nextMutationBatch(after: nil))
        try store.acknowledgeBatch(acknowledgement(batch, at: 200, incrementResult: .integer(50)))
        #expect(describe(try store.localDocument(key("rooms/a"))) == "rooms/a found v200.0 r200 {n:50} committed")
    }

    @Test("a rejected batch is rolled back to the server state; later batches stay applied", arguments: StoreMode.allCases)
    func reject(mode: StoreMode) throws {
        let fixture = try RestartableStore(mode)
        try fixture.store.applyRemoteDocuments([found("rooms/a", version: 5, ["n": .integer(1)])])
        let first = try fixture.store.writeLocally([updateData("rooms/a", ["n": .integer(2)]), setData("rooms/b", [:])], localWriteTime: time(100))
        let second = try fixture.store.writeLocally([mergeData("rooms/a", ["m": .integer(3)])], localWriteTime: time(101))
        let changed = try fixture.store.rejectBatch(first.batchID)
        #expect(try fixture.store.localDocument(key("rooms/a"))?.data == object(["n": .integer(1), "m": .integer(3)]))
        #expect(changed.count == 2 && changed[key("rooms/b")]! == nil, "the rejected set of rooms/b is gone")
        try fixture.store.rejectBatch(second.batchID)
        #expect(describe(try fixture.store.localDocument(key("rooms/a"))) == "rooms/a found v5.0 r5 {n:1}")
        if mode == .persistent {
            try fixture.restart()
            #expect(describe(try fixture.store.localDocument(key("rooms/a"))) == "rooms/a found v5.0 r5 {n:1}")
            #expect(try fixture.store.localDocument(key("rooms/b")) == nil && fixture.store.pendingBatchIDs.isEmpty)
        }
    }

    @Test("removing a batch that is not pending for the current user is invalidArgument")
    func notPending() throws {
        let store = keepingMemoryStore()
        let (batchID, _) = try store.writeLocally([setData("rooms/a", [:])], localWriteTime: time(100))
        let batch = try #require(try store.nextMutationBatch(after: nil))
        expectError(.invalidArgument) { try store.rejectBatch(batchID + 1) }
        let forged = MutationBatch(batchID: batchID, localWriteTime: time(100), mutations: [setData("rooms/b", [:])])
        expectError(.invalidArgument) { try store.acknowledgeBatch(acknowledgement(forged, at: 200)) }
        try store.switchUser(to: "ada")
        expectError(.invalidArgument) { try store.acknowledgeBatch(acknowledgement(batch, at: 200)) }
        try store.switchUser(to: "")
        try store.acknowledgeBatch(acknowledgement(batch, at: 200))
        expectError(.invalidArgument) { try store.acknowledgeBatch(acknowledgement(batch, at: 201)) }
    }
}
