import CairnModel
import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Values read from a cache's records at the edges of their ranges: each once trapped (an overflow, a
/// conversion, a precondition) and must now give a clear error or be shown as it is. Found by
/// ``EventDecoderFuzzTests``.
@Suite("Decoded values at their range limits")
struct DecodedValueRangeTests {
    /// A persistent cache on a simulated disk holding the given records, as a damaged or hand-written log would.
    func cache(_ records: [(kind: EventKind, key: [UInt8], value: [UInt8])]) throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
        for record in records { try log.append(kind: record.kind.rawValue, key: record.key, value: record.value) }
        try log.close()
        return fs
    }

    @Test("a batch id of Int.max in the outbox makes the next write fail with a clear error instead of overflowing")
    func highestBatchID() throws {
        let batch = MutationBatch(
            batchID: Int.max, localWriteTime: time(1), mutations: [.set(key("rooms/a"), value: ObjectValue())])
        let event = MutationBatchEvent.added(batch, user: "")
        let fs = try cache([(event.kind, event.key, event.value)])
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        defer { try? store.close() }
        #expect(store.pendingBatchIDs == [Int.max])
        #expect(throws: LocalStoreError.self) {
            try store.writeLocally([.set(key("rooms/b"), value: ObjectValue())], localWriteTime: time(2))
        }
    }

    @Test("a record's JSON (cairn dump --json) writes its LSN exactly, up to UInt64.max, instead of converting it to Int64")
    func recordJSONWithLargestLSN() {
        for lsn: UInt64 in [(1 << 62) - 1, 1 << 63, .max] {
            let record = DecodedRecord(
                lsn: lsn, location: RecordLocation(segment: .max, frameOffset: .max, index: .max, size: .max), kind: 255,
                event: "unknown", key: "k", isRetired: nil, body: .object([]), problem: "unknown kind 255")
            #expect(record.json.render().hasPrefix(
                "{\"lsn\":\(lsn),\"segment\":4294967295,\"frameOffset\":4294967295,\"index\":4294967295,\"size\":4294967295,\"kind\":255,"))
        }
    }
}
