import CairnTestSupport
import Testing
@testable import SegmentLog

/// Random operations against the log and against a trivial in-memory model of it; after every operation the
/// accounting must agree, and after every reopen and at the end the whole content must.
@Suite("Log versus model")
struct ModelTests {
    /// What the log should hold.
    final class Model {
        /// Present records (committed and not dropped by a compaction) by LSN, with their current location.
        var records: [UInt64: Record] = [:]
        /// LSNs of present records that were retired (since the last reopen, re-applied after it).
        var retired: Set<UInt64> = []
        /// Key → location of the newest record with that key: the view the compaction oracle consults.
        var view: [[UInt8]: RecordLocation] = [:]
        /// Where dropped records last lived.
        var dropped: [UInt64: RecordLocation] = [:]
        /// The lowest LSN the next commit may get.
        var nextLSN: UInt64 = 1
        /// A sorted list of present LSNs, rebuilt lazily, for picking random records.
        private var lsnCache: [UInt64]?

        var lsns: [UInt64] {
            if let lsnCache { return lsnCache }
            let sorted = records.keys.sorted()
            lsnCache = sorted
            return sorted
        }

        func add(_ record: Record) {
            records[record.lsn] = record
            view[record.key] = record.location
            lsnCache = nil
        }

        func drop(_ lsn: UInt64) {
            dropped[lsn] = records.removeValue(forKey: lsn)!.location
            retired.remove(lsn)
            lsnCache = nil
        }

        var deadBytes: UInt64 { retired.reduce(0) { $0 + UInt64(records[$1]!.location.size) } }
    }

    struct Run {
        let seed: UInt64
        var random: SeededRandom
        let fs = SimulatedFileSystem()
        var log: SegmentLog
        let model = Model()
        /// The last operations, for failure messages.
        var trace: [String] = []
        var step = 0
        var counts: [String: Int] = [:]

        init(seed: UInt64) throws {
            self.seed = seed
            random = SeededRandom(seed: seed)
            log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        }

        var context: String { "seed \(seed), step \(step), last operations: \(trace.suffix(6).joined(separator: "; "))" }

        mutating func note(_ operation: String) {
            trace.append(operation)
            if trace.count > 20 { trace.removeFirst() }
            counts[String(operation.prefix { $0 != " " }), default: 0] += 1
        }

        mutating func randomValue(_ n: Int) -> [UInt8] {
            switch random.next() % 20 {
            case 0: return []
            case 1: return (0..<(1500 + Int(random.next() % 2500))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 2, 3: return (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            default: return documentValue(n, size: Int(random.next() % 400), using: &random)
            }
        }

        mutating func commit(keyPrefix: String = "k") throws {
            var batch = WriteBatch()
            var pending: [(UInt8, [UInt8], [UInt8])] = []
            for i in 0..<(1 + Int(random.next() % 5)) {
                let n = Int(random.next() % 40)
                // Side keys are unique, so they never supersede anything.
                let key = keyPrefix == "k" ? bytes("k/\(n)") : bytes("\(keyPrefix)/\(model.nextLSN)-\(i)")
                let kind = UInt8(random.next() % 4)
                let value = randomValue(n)
                batch.append(kind: kind, key: key, value: value)
                pending.append((kind, key, value))
            }
            let locations = try log.commit(batch)
            try #require(locations.count == pending.count, "\(context): one location per record")
            let first = try log.read(locations[0]).lsn
            try #require(first >= model.nextLSN, "\(context): LSN \(first) after \(model.nextLSN - 1)")
            for (i, (kind, key, value)) in pending.enumerated() {
                model.add(Record(kind: kind, key: key, value: value, lsn: first + UInt64(i), location: locations[i]))
            }
            model.nextLSN = first + UInt64(pending.count)
            note("commit \(pending.count) at LSN \(first)")
        }

        mutating func retire() {
            let lsns = model.lsns
            switch random.next() % 10 {
            case 0 where !model.retired.isEmpty:
                let lsn = model.retired.sorted()[Int(random.next() % UInt64(model.retired.count))]
                log.retire(model.records[lsn]!.location)
                note("retire-again LSN \(lsn)")
            case 1 where !model.dropped.isEmpty:
                let lsn = model.dropped.keys.sorted()[Int(random.next() % UInt64(model.dropped.count))]
                log.retire(model.dropped[lsn]!)
                note("retire-dropped LSN \(lsn)")
            default:
                guard !lsns.isEmpty else { return }
                let lsn = lsns[Int(random.next() % UInt64(lsns.count))]
                log.retire(model.records[lsn]!.location)
                model.retired.insert(lsn)
                note("retire LSN \(lsn)")
            }
        }

        mutating func read() throws {
            if random.next() % 8 == 0, !model.dropped.isEmpty {
                let lsn = model.dropped.keys.sorted()[Int(random.next() % UInt64(model.dropped.count))]
                let location = model.dropped[lsn]!
                note("read-dropped LSN \(lsn) at \(location)")
                do {
                    let record = try log.read(location)
                    Issue.record("\(context): a dropped record's old location read back \(record)")
                } catch let error as StorageError {
                    #expect(error.code == .notFound, "\(context): \(error)")
                }
                return
            }
            let lsns = model.lsns
            guard !lsns.isEmpty else { return }
            let lsn = lsns[Int(random.next() % UInt64(lsns.count))]
            let expected = model.records[lsn]!
            note("read LSN \(lsn) at \(expected.location)")
            let record = try log.read(expected.location)
            try #require(record == expected, "\(context): read back \(record.lsn) \(record.location)")
            try #require(log.isRetired(expected.location) == model.retired.contains(lsn), "\(context): isRetired")
        }

        mutating func compact() throws {
            let threshold = [0.0, 0.2, 0.5][Int(random.next() % 3)]
            let candidates = log.compactionCandidates(minimumDeadRatio: threshold)
            guard !candidates.isEmpty else { return }
            let inputs = Array(candidates.prefix(1 + Int(random.next() % 3)))
            let inputSet = Set(inputs)
            let cluster = random.next() % 2 == 0
            let budget = [700, 5000, 4 << 20][Int(random.next() % 3)]
            note("compact \(inputs) cluster \(cluster) budget \(budget)")
            // The prediction: a record of the inputs survives when not retired and still the newest for its key.
            let inInputs = model.records.values.filter { inputSet.contains($0.location.segment) }
            let kept = inInputs.filter { !model.retired.contains($0.lsn) && model.view[$0.key] == $0.location }
            let compaction = try log.makeCompaction(of: inputs, clusterByKey: cluster, isLive: Self.oracle(model))
            let result = try finish(compaction, budget: budget)
            try #require(Set(result.inputs) == inputSet, "\(context): inputs")
            try #require(Set(result.relocations.map(\.from)) == Set(kept.map(\.location)),
                         "\(context): relocations \(result.relocations.count) for \(kept.count) predicted survivors")
            try #require(result.recordsKept == kept.count && result.recordsDropped == inInputs.count - kept.count,
                         "\(context): kept \(result.recordsKept), dropped \(result.recordsDropped)")
            let byLocation = Dictionary(uniqueKeysWithValues: inInputs.map { ($0.location, $0.lsn) })
            for move in result.relocations {
                let lsn = byLocation[move.from]!
                var moved = model.records[lsn]!
                try #require(move.key == moved.key, "\(context): relocation key")
                moved.location = move.to
                model.add(moved)  // the view follows the move: the record was the newest for its key
            }
            let keptLSNs = Set(kept.map(\.lsn))
            for record in inInputs where !keptLSNs.contains(record.lsn) { model.drop(record.lsn) }
        }

        /// The liveness oracle a layer above would pass: is this record still the newest for its key?
        static func oracle(_ model: Model) -> (RecordView) -> Bool {
            { view in model.view[view.keyBytes] == view.location }
        }

        /// Steps a compaction to its end, committing now and then between steps.
        mutating func finish(_ compaction: Compaction, budget: Int) throws -> CompactionSummary {
            for _ in 0..<100_000 {
                if let summary = try compaction.step(budget: budget) { return summary }
                // Commits between steps, on keys the inputs do not hold, change nothing about the prediction.
                if random.next() % 3 == 0 { try commit(keyPrefix: "side") }
            }
            throw StorageError(.invalidArgument, "\(context): the compaction does not finish")
        }

        mutating func reopen() throws {
            note("reopen")
            try log.close()
            log = try SegmentLog.open(at: "/db", configuration: .small(fs))
            try #require(log.recoveryReport.truncatedBytes == 0 && log.recoveryReport.removedOrphans.isEmpty,
                          "\(context): a clean close leaves nothing to recover: \(log.recoveryReport)")
            // Retirement lives in memory: the layer above re-applies it while replaying.
            for lsn in model.retired { log.retire(model.records[lsn]!.location) }
            try compareContent("after reopen")
            let next = log.statistics.nextLSN
            try #require(next >= model.nextLSN, "\(context): nextLSN went back from \(model.nextLSN) to \(next)")
            model.nextLSN = next
        }

        /// The accounting the log keeps must match the model after every operation.
        func compareStatistics() throws {
            let stats = log.statistics
            try #require(stats.recordCount == UInt64(model.records.count),
                         "\(context): recordCount \(stats.recordCount), model \(model.records.count)")
            try #require(stats.segments.reduce(0) { $0 + $1.deadRecordCount } == UInt64(model.retired.count),
                         "\(context): dead records \(stats.segments.reduce(0) { $0 + $1.deadRecordCount }), model \(model.retired.count)")
            try #require(stats.deadRecordBytes == model.deadBytes,
                         "\(context): dead bytes \(stats.deadRecordBytes), model \(model.deadBytes)")
            try #require(stats.recordBytes == model.records.values.reduce(0) { $0 + UInt64($1.location.size) },
                         "\(context): record bytes")
        }

        /// The scan must hold exactly the model's present records (order by LSN may differ after compaction).
        func compareContent(_ label: String) throws {
            var found: [UInt64: Record] = [:]
            for record in try allRecords(log) {
                try #require(found.updateValue(record, forKey: record.lsn) == nil, "\(context), \(label): LSN \(record.lsn) twice")
            }
            let missing = Set(model.records.keys).subtracting(found.keys)
            let extra = Set(found.keys).subtracting(model.records.keys)
            try #require(missing.isEmpty, "\(context), \(label): missing LSNs \(missing.sorted().prefix(10))")
            try #require(extra.isEmpty, "\(context), \(label): unexpected LSNs \(extra.sorted().prefix(10)), dropped: \(extra.filter { model.dropped[$0] != nil }.count)")
            for (lsn, record) in found {
                try #require(record == model.records[lsn]!, "\(context), \(label): LSN \(lsn) differs")
            }
            try compareStatistics()
        }
    }

    @Test("random commits, retirements, reads, compactions and reopens agree with a trivial model", arguments: [11, 22, 33, 44, 55, 66] as [UInt64])
    func randomOperations(seed: UInt64) throws {
        var run = try Run(seed: seed)
        for step in 0..<500 {
            run.step = step
            let roll = run.random.next() % 100
            switch roll {
            case 0..<45: try run.commit()
            case 45..<65: run.retire()
            case 65..<85: try run.read()
            case 85..<95: try run.compact()
            case 95..<97: try run.log.sync()
            default: try run.reopen()
            }
            try run.compareStatistics()
        }
        try run.compareContent("at the end")
        try run.reopen()
        try run.compareContent("after the final reopen")
        print("model seed \(seed): \(run.counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
              + "\(run.model.records.count) records present, \(run.model.dropped.count) dropped, \(run.log.statistics.segments.count) segments")
        #expect(run.counts["compact", default: 0] >= 5, "seed \(seed): the run compacted")
        #expect(run.counts["reopen", default: 0] >= 3, "seed \(seed): the run reopened")
        #expect(!run.model.dropped.isEmpty, "seed \(seed): compaction dropped something")
        try run.log.close()
    }
}
