import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Target membership cost")
struct TargetSnapshotCostTests {
    @Test("one-key changes to a large target do not rewrite its whole membership every 64 changes")
    func snapshotsScaleWithTheTarget() throws {
        let fs = SimulatedFileSystem()
        var configuration = smallLog(fs)
        configuration.segmentTargetSize = 1 << 20
        let store = try LocalStore.open(at: "/cache", configuration: configuration)
        _ = try store.allocateTarget(roomsQuery())
        let members = Set((0..<2000).map { key("rooms/r\($0)") })
        try store.advanceTarget(roomsQuery(), token: [0], at: 1, added: members)
        let log = segmentLog(of: store)
        let before = log.statistics.recordBytes
        for step in 1...100 {
            try store.advanceTarget(roomsQuery(), token: [UInt8(step)], at: Int64(1 + step), added: [key("rooms/new\(step)")])
        }
        let perChange = (log.statistics.recordBytes - before) / 100
        #expect(perChange < 150, "each one-key change cost \(perChange) bytes; a 2,000-key snapshot would cost ~30 KB")
        #expect(store.remoteKeys(forTarget: store.targetData(for: roomsQuery())!.targetID).count == 2100)
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: configuration)
        _ = try reopened.allocateTarget(roomsQuery())
        #expect(reopened.remoteKeys(forTarget: reopened.targetData(for: roomsQuery())!.targetID).count == 2100)
        try reopened.close()
    }
}
