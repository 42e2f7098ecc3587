import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Target events")
struct TargetEventTests {
    @Test("a saved target's every field round-trips through its event, the sequence number aside")
    func savedRoundTrip() throws {
        let data = TargetData(
            targetID: -8, query: roomsQuery(sizeAbove: 3), purpose: .limboResolution, sequenceNumber: 77,
            snapshotVersion: Timestamp(seconds: 5, nanoseconds: 6), lastLimboFreeSnapshotVersion: time(4),
            resumeToken: [0, 255, 1], expectedCount: 42)
        let event = TargetEvent.saved(data)
        let decoded = try event.value.withUnsafeBytes { value in
            try event.key.withUnsafeBytes { try TargetCacheEvent.decode(.targetSaved, key: $0, value: value) }
        }
        guard case .saved(let back) = decoded else { Issue.record("decoded \(decoded)"); return }
        var expected = data
        expected.sequenceNumber = 0
        #expect(back == expected && back.query.canonicalID == data.query.canonicalID)
    }

    @Test("every truncation of a target or globals event value is refused with dataLoss")
    func truncations() {
        var globals = TargetGlobals()
        globals.writeStreamTokens = ["alice": [1, 2], "bob": []]
        globals.sessionToken = [3]
        let events = [
            TargetEvent.saved(TargetData(targetID: 2, query: roomsQuery(sizeAbove: 1), resumeToken: [1], expectedCount: 1)),
            TargetEvent.membership(2, .delta(added: keySet("rooms/a", "rooms/b"), removed: keySet("rooms/c"))),
            GlobalsEvent.encode(globals),
        ]
        for event in events {
            for length in 0..<event.value.count {
                #expect {
                    try Array(event.value[..<length]).withUnsafeBytes { value in
                        try event.key.withUnsafeBytes { try TargetCacheEvent.decode(event.kind, key: $0, value: value) }
                    }
                } throws: { ($0 as? LocalStoreError)?.code == .dataLoss }
            }
        }
    }

    @Test("a damaged target record in the log makes open fail with dataLoss, naming the event")
    func damagedRecord() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
        try log.append(kind: EventKind.targetMembershipChanged.rawValue, key: TargetEvent.key(2), value: [1, 0, 1, 3, 0x61])
        try log.close()
        #expect {
            try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        } throws: { error in
            guard let error = error as? LocalStoreError else { return false }
            return error.code == .dataLoss && error.message.contains("targetMembershipChanged event of target 2")
        }
    }
}
