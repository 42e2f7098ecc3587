import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Target membership")
struct TargetMembershipTests {
    @Test("after 64 deltas a snapshot replaces them: the membership survives a restart and old records are retired")
    func snapshots() throws {
        let fs = SimulatedFileSystem()
        let id: Int32
        var expected: Set<DocumentKey> = []
        var sawSnapshot = false
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            id = try store.allocateTarget(roomsQuery()).targetID
            for i in 0..<70 {
                let leaving: Set<DocumentKey> = i >= 3 ? [key("rooms/r\(i - 3)")] : []
                try store.advanceTarget(roomsQuery(), token: [1], at: 1, added: [key("rooms/r\(i)")], removed: leaving)
                expected.insert(key("rooms/r\(i)"))
                expected.subtract(leaving)
                if store.targets.membership.deltaCount(of: id) == 0 { sawSnapshot = true }
            }
            #expect(sawSnapshot && store.targets.membership.deltaCount(of: id) == 5)
            #expect(store.remoteKeys(forTarget: id) == expected)
            // Live: the targetSaved, the globals, the snapshot and the 5 deltas after it.
            #expect(segmentLog(of: store).statistics.liveRecordCount == 8)
            try store.close()
        }
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(store.remoteKeys(forTarget: id) == expected && expected.count == 3)
        #expect(store.targets.membership.deltaCount(of: id) == 5)
        #expect(segmentLog(of: store).statistics.liveRecordCount == 8, "replay retires the same records")
        #expect(segmentLog(of: store).statistics.recordCount == 142)
        try store.close()
    }

    @Test("removing a target retires its records, keeps its removal, and orphans its documents")
    func removal() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let id = try store.allocateTarget(roomsQuery()).targetID
        try store.advanceTarget(roomsQuery(), token: [1], at: 1, added: keySet("rooms/a"))
        try store.releaseTarget(id, keepPersisted: false)
        try store.removeTarget(id)
        #expect(store.remoteKeys(forTarget: id).isEmpty && store.targetIDs(containing: key("rooms/a")).isEmpty)
        // Live: the globals and the removal.
        #expect(segmentLog(of: store).statistics.liveRecordCount == 2)
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(segmentLog(of: reopened).statistics.liveRecordCount == 2)
        #expect(reopened.targetData(for: roomsQuery()) == nil && reopened.remoteKeys(forTarget: id).isEmpty)
        try reopened.close()
    }

    @Test("replay may meet the events in any order: the view ends as in sequence order, with the same live records")
    func orderIndependence() {
        var random = SeededRandom(seed: 5)
        let pool = (0..<6).map { key("rooms/k\($0)") }
        for round in 0..<200 {
            var events: [(TargetCacheEvent, UInt64)] = []
            for sequence in 1...UInt64(12) {
                let target: Int32 = Bool.random(using: &random) ? 2 : 4
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    events.append((.saved(TargetData(targetID: target, query: roomsQuery(), resumeToken: [UInt8(sequence)])), sequence))
                case 1:
                    var globals = TargetGlobals()
                    globals.highestTargetID = Int32(sequence)
                    events.append((.globalsChanged(globals), sequence))
                case 2:
                    events.append((.membershipChanged(target, .snapshot(Set(pool.filter { _ in Bool.random(using: &random) }))), sequence))
                default:
                    let added = Set(pool.filter { _ in Bool.random(using: &random) })
                    let removed = Set(pool.filter { _ in Bool.random(using: &random) }).subtracting(added)
                    events.append((.membershipChanged(target, .delta(added: added, removed: removed)), sequence))
                }
            }
            if round % 2 == 0 { events.append((.removed(2), 13)) }
            let inOrder = Self.replay(events)
            let shuffled = Self.replay(events.shuffled(using: &random))
            #expect(shuffled.live == inOrder.live)
            #expect(shuffled.view.globals == inOrder.view.globals)
            for target: Int32 in [2, 4] {
                #expect(shuffled.view.saved[target]?.data == inOrder.view.saved[target]?.data)
                #expect(shuffled.view.membership.keys(of: target) == inOrder.view.membership.keys(of: target))
            }
            for key in pool { #expect(shuffled.view.membership.targets(containing: key) == inOrder.view.membership.targets(containing: key)) }
        }
    }

    /// Applies events (each at the memory reference named by its sequence number); returns the view and the
    /// references never superseded.
    static func replay(_ events: [(TargetCacheEvent, UInt64)]) -> (view: TargetView, live: Set<EventReference>) {
        var view = TargetView()
        var live = Set<EventReference>()
        for (event, sequence) in events {
            live.insert(.memory(Int(sequence)))
            live.subtract(view.apply(event, reference: .memory(Int(sequence)), sequence: sequence))
        }
        return (view, live)
    }
}
