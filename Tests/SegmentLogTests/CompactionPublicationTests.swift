import CairnTestSupport
import Testing
@testable import SegmentLog

/// A compaction's publication off the caller's thread: a step that does not wait returns while the outputs,
/// the directory and the manifest are synced on the log's publisher queue; the inputs stay readable until a
/// later step switches to the outputs; a manifest written meanwhile (a segment roll) names the outputs.
@Suite("Compaction publication")
struct CompactionPublicationTests {
    /// Commits `batches` small batches over 20 keys to `log` and retires every record but each key's newest;
    /// returns the newest location per key and every committed record.
    static func fill(_ log: SegmentLog, batches: Int, seed: UInt64) throws -> (latest: [[UInt8]: RecordLocation], records: [Record]) {
        var random = SeededRandom(seed: seed)
        var latest: [[UInt8]: RecordLocation] = [:]
        var records: [Record] = []
        for _ in 0..<batches {
            let n = Int(random.next() % 20)
            let location = try log.append(kind: 1, key: bytes("doc/\(n)"), value: documentValue(n, size: 150, using: &random))
            if let old = latest[bytes("doc/\(n)")] { log.retire(old) }
            latest[bytes("doc/\(n)")] = location
            records.append(try log.read(location))
        }
        return (latest, records)
    }

    @Test("a step that does not wait returns while the publication's syncs are held; the inputs stay readable until a later step switches to the outputs")
    func stepDoesNotWaitForSyncs() throws {
        let gate = SyncGateFileSystem(SimulatedFileSystem(seed: 71), maxHold: 60)
        let log = try SegmentLog.open(at: "/db", configuration: .small(gate))
        let (latest, records) = try Self.fill(log, batches: 200, seed: 71)
        let inputs = Array(log.compactionCandidates(minimumDeadRatio: 0.3).prefix(2))
        try #require(inputs.count == 2)
        let inInputs = records.filter { inputs.contains($0.location.segment) }
        let compaction = try log.makeCompaction(of: inputs) { latest[$0.keyBytes] == $0.location }

        gate.hold()
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try compaction.step(budget: 1 << 30, waitForPublication: false) == nil, "the outputs are not durable yet")
        #expect(compaction.isAwaitingPublication)
        #expect(gate.awaitWaitingSync(), "the publisher queue syncs the outputs")
        #expect(try compaction.step(waitForPublication: false) == nil, "still held: nothing to switch to")
        for record in inInputs { #expect(try log.read(record.location) == record, "inputs stay readable meanwhile") }
        #expect(!compaction.waitForPublication(timeout: .milliseconds(20)))
        #expect(clock.now - started < .seconds(30), "no step waited for a held sync")
        gate.release()

        #expect(compaction.waitForPublication(timeout: .seconds(60)))
        let summary = try #require(try compaction.step(waitForPublication: false))
        #expect(gate.heldTooLong == 0)
        #expect(summary.inputs == inputs)
        let moves = Dictionary(uniqueKeysWithValues: summary.relocations.map { ($0.from, $0.to) })
        for record in inInputs where latest[record.key] == record.location {
            let to = try #require(moves[record.location])
            #expect(try log.read(to).value == record.value, "a live record is at its new place")
        }
        for id in inputs {
            #expect(throws: StorageError.self) { try log.read(RecordLocation(segment: id, frameOffset: 28, index: 0, size: 0)) }
        }
        try log.close()
    }

    @Test("a segment roll between a durable publication and the switch names the outputs, so a power loss after the switch loses no live record")
    func rollDuringPublicationNamesOutputs() throws {
        let fs = SimulatedFileSystem(seed: 72)
        let gate = SyncGateFileSystem(fs, maxHold: 60)
        let log = try SegmentLog.open(at: "/db", configuration: .small(gate))
        var (latest, _) = try Self.fill(log, batches: 200, seed: 72)
        let inputs = Array(log.compactionCandidates(minimumDeadRatio: 0.3).prefix(2))
        try #require(inputs.count == 2)
        let live = latest
        let compaction = try log.makeCompaction(of: inputs) { live[$0.keyBytes] == $0.location }
        gate.hold()
        #expect(try compaction.step(budget: 1 << 30, waitForPublication: false) == nil)
        gate.release()
        #expect(compaction.waitForPublication(timeout: .seconds(60)))
        // Durable, not switched: roll the active segment now.
        latest[bytes("late")] = try log.append(kind: 1, key: bytes("late"), value: bytes("after the publication"))
        try #require(try log.sealActiveSegment() != nil)
        let named = Set(try Manifest.read(from: "/db", fileSystem: fs).entries.map(\.id))
        for id in inputs { #expect(!named.contains(id), "the roll's manifest does not name input \(id)") }

        let summary = try #require(try compaction.step(waitForPublication: false))
        for id in summary.outputs { #expect(named.contains(id), "the roll's manifest names output \(id)") }
        for move in summary.relocations where latest[move.key] == move.from { latest[move.key] = move.to }
        let expected = try Dictionary(uniqueKeysWithValues: latest.map { ($0.key, try log.read($0.value).value) })
        try log.close()

        // Power loss: only what was synced survives.
        let image = fs.crashImage(.dropUnsyncedData, seed: 72)
        let reopened = try SegmentLog.open(at: "/db", configuration: .small(image))
        var newest: [[UInt8]: (lsn: UInt64, value: [UInt8])] = [:]
        try reopened.scan { view in
            if (newest[view.keyBytes]?.lsn ?? 0) < view.lsn { newest[view.keyBytes] = (view.lsn, Array(view.value)) }
        }
        for (key, value) in expected { #expect(newest[key]?.value == value, "key \(String(decoding: key, as: UTF8.self))") }
        try reopened.close()
    }
}
