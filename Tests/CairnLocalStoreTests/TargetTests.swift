import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// A collection query, optionally filtered on `size`.
func roomsQuery(sizeAbove size: Int64? = nil) -> Query {
    let rooms = Query(path: ResourcePath(segments: ["rooms"]))
    guard let size else { return rooms }
    return try! rooms.filtered(by: .field(FieldFilter(FieldPath(segments: ["size"]), .greaterThan, .integer(size))))
}

/// The keys of the documents at the given paths.
func keySet(_ paths: String...) -> Set<DocumentKey> { Set(paths.map(key)) }

/// The log under a persistent store, for its statistics.
func segmentLog(of store: LocalStore) -> SegmentLog { store.events.log! }

extension LocalStore {
    /// Moves an active target to a new resume token and snapshot version and applies a membership change.
    @discardableResult
    func advanceTarget(
        _ query: Query, token: [UInt8], at seconds: Int64, added: Set<DocumentKey> = [], removed: Set<DocumentKey> = [],
        modified: Set<DocumentKey> = []
    ) throws -> TargetData {
        var data = try #require(targetData(for: query))
        data.resumeToken = token
        data.snapshotVersion = time(seconds)
        return try updateTarget(data, added: added, removed: removed, modified: modified)
    }
}

@Suite("Target allocation")
struct TargetAllocationTests {
    @Test("an equal query reuses its target without a write; new targets get even ids stepping by 2")
    func reuse() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let first = try store.allocateTarget(roomsQuery())
        let lsn = segmentLog(of: store).statistics.nextLSN
        #expect(first.targetID == 2 && first.purpose == .listen && first.resumeToken.isEmpty)
        #expect(first.sequenceNumber == lsn - 2, "the target's sequence number is the LSN of its targetSaved record")
        #expect(try store.allocateTarget(roomsQuery()) == first)
        #expect(segmentLog(of: store).statistics.nextLSN == lsn)
        #expect(try store.allocateTarget(roomsQuery(sizeAbove: 2)).targetID == 4)
        #expect(store.highestTargetID == 4 && store.activeTargetIDs == [2, 4])
        // limit(toLast:) flips the order: it runs the same target as the matching limit(to:) query.
        let last = try roomsQuery().ordered(by: OrderBy(FieldPath(segments: ["a"]))).limitedToLast(2)
        let first2 = try roomsQuery().ordered(by: OrderBy(FieldPath(segments: ["a"]), descending: true)).limited(to: 2)
        #expect(try store.allocateTarget(last).targetID == store.allocateTarget(first2).targetID)
        try store.close()
    }

    @Test("queries sharing a canonical id but not a target get separate targets, and each finds its own")
    func sharedCanonicalID() throws {
        let store = keepingMemoryStore()
        let a = Filter.field(FieldFilter(FieldPath(segments: ["a"]), .equal, .integer(1)))
        let b = Filter.field(FieldFilter(FieldPath(segments: ["b"]), .equal, .integer(2)))
        let chained = try roomsQuery().filtered(by: a).filtered(by: b)
        let combined = try roomsQuery().filtered(by: .and([a, b]))
        #expect(chained.target.canonicalID == combined.target.canonicalID && chained.target != combined.target)
        let one = try store.allocateTarget(chained)
        let two = try store.allocateTarget(combined)
        #expect(one.targetID != two.targetID)
        #expect(store.targetData(for: chained)?.targetID == one.targetID)
        #expect(store.targetData(for: combined)?.targetID == two.targetID)
        try store.releaseTarget(one.targetID, keepPersisted: false)
        try store.removeTarget(one.targetID)
        #expect(store.targetData(for: chained) == nil && store.targetData(for: combined)?.targetID == two.targetID)
    }

    @Test("a removed target's id is never allocated again, also after a restart")
    func idsNeverReused() throws {
        let fs = SimulatedFileSystem()
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            _ = try store.allocateTarget(roomsQuery())
            let removed = try store.allocateTarget(roomsQuery(sizeAbove: 1))
            try store.releaseTarget(removed.targetID, keepPersisted: false)
            try store.removeTarget(removed.targetID)
            try store.close()
        }
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(store.highestTargetID == 4 && store.activeTargetIDs.isEmpty)
        #expect(store.targetData(for: roomsQuery(sizeAbove: 1)) == nil)
        #expect(try store.allocateTarget(roomsQuery(sizeAbove: 1)).targetID == 6)
        #expect(try store.allocateTarget(roomsQuery()).targetID == 2, "the kept target is found again by its query")
        try store.close()
    }

    @Test("misuse is refused with invalidArgument: updating or releasing an inactive target, removing an active one")
    func misuse() throws {
        let store = LocalStore.inMemory()
        let data = try store.allocateTarget(roomsQuery())
        func expectInvalid(_ body: () throws -> Void) {
            #expect { try body() } throws: { ($0 as? LocalStoreError)?.code == .invalidArgument }
        }
        expectInvalid { try store.removeTarget(data.targetID) }
        expectInvalid { try store.removeTarget(40) }
        var other = data
        other.query = roomsQuery(sizeAbove: 3)
        expectInvalid { try store.updateTarget(other, added: [], removed: []) }
        try store.releaseTarget(data.targetID, keepPersisted: true)
        expectInvalid { try store.releaseTarget(data.targetID, keepPersisted: false) }
        expectInvalid { try store.updateTarget(data, added: [], removed: []) }
        expectInvalid { try store.setLastRemoteSnapshotVersion(time(-1)) }
    }
}

@Suite("Target persistence")
struct TargetPersistenceTests {
    /// Allocates two targets, changes them and the globals: the same on either kind of store.
    func exercise(_ store: LocalStore) throws {
        let rooms = try store.allocateTarget(roomsQuery())
        _ = try store.allocateTarget(roomsQuery(sizeAbove: 5))
        try store.advanceTarget(roomsQuery(), token: [1, 2, 3], at: 10, added: keySet("rooms/a", "rooms/b", "rooms/c"))
        try store.advanceTarget(roomsQuery(), token: [4], at: 20, added: keySet("rooms/d"), removed: keySet("rooms/a"))
        try store.advanceTarget(roomsQuery(sizeAbove: 5), token: [5], at: 20, added: keySet("rooms/b"))
        var data = try #require(store.targetData(for: roomsQuery()))
        data.lastLimboFreeSnapshotVersion = time(15)
        data.expectedCount = 3
        try store.updateTarget(data, added: [], removed: [], modified: keySet("rooms/b"))
        try store.releaseTarget(rooms.targetID, keepPersisted: false)
        try store.setLastRemoteSnapshotVersion(time(20))
        try store.setWriteStreamToken([9, 9], forUser: "alice")
        try store.setWriteStreamToken([8], forUser: "")
        try store.setSessionToken([7])
    }

    func expectExercised(_ store: LocalStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let rooms = try #require(store.targetData(for: roomsQuery()), sourceLocation: sourceLocation)
        #expect(rooms.targetID == 2 && rooms.resumeToken == [4] && rooms.snapshotVersion == time(20), sourceLocation: sourceLocation)
        #expect(rooms.lastLimboFreeSnapshotVersion == time(15) && rooms.expectedCount == 3, sourceLocation: sourceLocation)
        #expect(store.remoteKeys(forTarget: 2) == keySet("rooms/b", "rooms/c", "rooms/d"), sourceLocation: sourceLocation)
        #expect(store.remoteKeys(forTarget: 4) == keySet("rooms/b"), sourceLocation: sourceLocation)
        #expect(store.targetIDs(containing: key("rooms/b")) == [2, 4], sourceLocation: sourceLocation)
        #expect(store.targetIDs(containing: key("rooms/a")).isEmpty, sourceLocation: sourceLocation)
        #expect(store.lastRemoteSnapshotVersion == time(20) && store.highestTargetID == 4, sourceLocation: sourceLocation)
        #expect(store.writeStreamToken(forUser: "alice") == [9, 9] && store.writeStreamToken(forUser: "") == [8], sourceLocation: sourceLocation)
        #expect(store.writeStreamToken(forUser: "bob") == nil && store.sessionToken == [7], sourceLocation: sourceLocation)
    }

    @Test("target data, membership and globals survive a restart, with the sequence number of the last save")
    func restart() throws {
        let fs = SimulatedFileSystem()
        let released: TargetData
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            try exercise(store)
            released = try #require(store.targetData(for: roomsQuery()))
            try expectExercised(store)
            try store.close()
        }
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        try expectExercised(store)
        #expect(store.targetData(for: roomsQuery()) == released)
        #expect(store.targetData(for: roomsQuery())?.sequenceNumber == released.sequenceNumber)
        #expect(store.activeTargetIDs.isEmpty, "activity is session state")
        try store.close()
    }

    @Test("the same calls work in memory mode")
    func memory() throws {
        let store = keepingMemoryStore()
        try exercise(store)
        try expectExercised(store)
        try store.setWriteStreamToken([], forUser: "alice")
        #expect(store.writeStreamToken(forUser: "alice") == nil, "an empty token clears it")
    }

    @Test("releasing saves the active data with a fresh sequence number; keepPersisted writes nothing")
    func release() throws {
        let fs = SimulatedFileSystem()
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            let first = try store.allocateTarget(roomsQuery())
            let second = try store.allocateTarget(roomsQuery(sizeAbove: 1))
            try store.advanceTarget(roomsQuery(), token: [1], at: 10)
            try store.advanceTarget(roomsQuery(), token: [2], at: 20)
            try store.advanceTarget(roomsQuery(sizeAbove: 1), token: [1], at: 10)
            try store.advanceTarget(roomsQuery(sizeAbove: 1), token: [2], at: 20)
            let lsn = segmentLog(of: store).statistics.nextLSN
            try store.releaseTarget(second.targetID, keepPersisted: true)
            #expect(segmentLog(of: store).statistics.nextLSN == lsn)
            try store.releaseTarget(first.targetID, keepPersisted: false)
            #expect(store.targetData(for: roomsQuery())?.sequenceNumber == lsn)
            try store.close()
        }
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(store.targetData(for: roomsQuery())?.resumeToken == [2])
        #expect(store.targetData(for: roomsQuery(sizeAbove: 1))?.resumeToken == [1], "only the saved token survives")
        try store.close()
    }
}

@Suite("ShouldPersistTargetData")
struct ShouldPersistTargetDataTests {
    @Test("a new token is saved when there was none, 5 minutes after the previous one, or with document changes")
    func rule() throws {
        let store = LocalStore.inMemory()
        let id = try store.allocateTarget(roomsQuery()).targetID
        func saved() -> [UInt8]? { store.targets.saved[id]?.data.resumeToken }
        try store.advanceTarget(roomsQuery(), token: [1], at: 100)
        #expect(saved() == [1], "the first token is always saved")
        try store.advanceTarget(roomsQuery(), token: [2], at: 200)
        #expect(saved() == [1] && store.targetData(for: roomsQuery())?.resumeToken == [2], "a token alone stays in memory")
        try store.advanceTarget(roomsQuery(), token: [3], at: 499)
        #expect(saved() == [1], "299 s after the previous token is not enough")
        try store.advanceTarget(roomsQuery(), token: [4], at: 799)
        #expect(saved() == [4], "300 s after the previous token is")
        try store.advanceTarget(roomsQuery(), token: [5], at: 800, added: keySet("rooms/a"))
        #expect(saved() == [5], "added documents")
        try store.advanceTarget(roomsQuery(), token: [6], at: 801, modified: keySet("rooms/a"))
        #expect(saved() == [6], "modified documents")
        try store.advanceTarget(roomsQuery(), token: [7], at: 802, removed: keySet("rooms/a"))
        #expect(saved() == [7], "removed documents")
        try store.advanceTarget(roomsQuery(), token: [8], at: 803, removed: keySet("rooms/zz"))
        #expect(saved() == [8], "a change Watch reports counts even when the key was not a member")
    }
}
