import CairnTestSupport
@testable import SegmentLog

/// A scripted workload for crash testing, and the model of what it committed.
///
/// The workload is generated up front from a seed, so a run that crashes at operation k replays exactly the
/// operations of an uncrashed run up to k. The harness keeps the view a layer above would keep (key →
/// location of the latest record), retires superseded records, compacts dirty segments with that view as the
/// liveness oracle, and reopens the log now and then. With `syncBehindEvery`, it also syncs behind its commits
/// (``SegmentLog/syncBehindCommits()``, the cache's group commit) after every that many commits.
struct CrashWorkload {
    struct Put: Equatable {
        var kind: UInt8
        var key: [UInt8]
        var value: [UInt8]
    }

    enum Step {
        case commit([Put])
        case compact(clusterByKey: Bool)
        case reopen
    }

    let steps: [Step]

    init(seed: UInt64, steps count: Int, keySpace: Int = 40) {
        var random = SeededRandom(seed: seed)
        var steps: [Step] = []
        for _ in 0..<count {
            let roll = random.next() % 100
            if roll < 8 {
                steps.append(.compact(clusterByKey: random.next() % 2 == 0))
            } else if roll < 11 {
                steps.append(.reopen)
            } else {
                var puts: [Put] = []
                let size = 1 + Int(random.next() % 6)
                for _ in 0..<size {
                    let key = Array("key-\(random.next() % UInt64(keySpace))".utf8)
                    if random.next() % 10 == 0 {
                        puts.append(Put(kind: 2, key: key, value: []))  // a tombstone
                    } else {
                        let length = random.next() % 20 == 0 ? 2500 + Int(random.next() % 2000) : Int(random.next() % 700)
                        let fill = UInt8(truncatingIfNeeded: random.next())
                        var value = Array("v\(random.next())-".utf8)
                        value += (0..<length).map { fill &+ UInt8(truncatingIfNeeded: $0 / 7) }
                        puts.append(Put(kind: 1, key: key, value: value))
                    }
                }
                steps.append(.commit(puts))
            }
        }
        self.steps = steps
    }

    /// What one run did before it stopped (at the end or at the first error).
    struct Outcome {
        /// Batches whose commit returned, in order.
        var acknowledged: [[Put]] = []
        /// The batch whose commit threw, if the run stopped there: it may or may not be in the log.
        var inFlight: [Put]?
        /// How many of the first acknowledged batches were reported durable: each one under `.full`, those before
        /// a sync behind the commits or a close that returned otherwise.
        var durableBatches = 0
        var error: Error?
        var compactions = 0
    }

    /// Runs the workload on `fs` until it finishes or an operation throws.
    func run(
        on fs: SimulatedFileSystem, configuration: SegmentLog.Configuration, directory: String = "/db", syncBehindEvery: Int? = nil
    ) -> Outcome {
        var outcome = Outcome()
        var commits = 0
        var log: SegmentLog?
        var view: [[UInt8]: RecordLocation] = [:]
        do {
            log = try SegmentLog.open(at: directory, configuration: configuration)
            for step in steps {
                switch step {
                case .commit(let puts):
                    var batch = WriteBatch()
                    for put in puts { batch.append(kind: put.kind, key: put.key, value: put.value) }
                    outcome.inFlight = puts
                    let locations = try log!.commit(batch)
                    outcome.inFlight = nil
                    outcome.acknowledged.append(puts)
                    commits += 1
                    if configuration.durability == .full { outcome.durableBatches = outcome.acknowledged.count }
                    if let syncBehindEvery, commits % syncBehindEvery == 0 {
                        _ = try log!.syncBehindCommits()
                        outcome.durableBatches = outcome.acknowledged.count
                    }
                    for (put, location) in zip(puts, locations) {
                        if let old = view[put.key] { log!.retire(old) }
                        view[put.key] = location
                    }
                case .compact(let cluster):
                    let victims = log!.compactionCandidates(minimumDeadRatio: 0.3)
                    guard !victims.isEmpty else { continue }
                    let snapshot = view
                    let compaction = try log!.makeCompaction(of: Array(victims.prefix(3)), clusterByKey: cluster) { record in
                        snapshot[Array(record.key)] == record.location
                    }
                    while true {
                        guard let summary = try compaction.step(budget: 3000) else { continue }
                        for move in summary.relocations where view[move.key] == move.from { view[move.key] = move.to }
                        break
                    }
                    outcome.compactions += 1
                case .reopen:
                    try log!.close()
                    outcome.durableBatches = outcome.acknowledged.count
                    log = nil
                    log = try SegmentLog.open(at: directory, configuration: configuration)
                    view = [:]
                    try log!.scan { record in
                        if let old = view[Array(record.key)] { log!.retire(old) }
                        view[Array(record.key)] = record.location
                    }
                }
            }
            try log!.close()
        } catch {
            outcome.error = error
        }
        return outcome
    }
}

/// Checks a recovered log against what a run committed.
struct CrashOracle {
    let outcome: CrashWorkload.Outcome

    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    /// Every issued record by its LSN, assuming LSNs start at 1 and batches were issued in order.
    private var issued: [(lsn: UInt64, batch: Int, put: CrashWorkload.Put)] {
        var result: [(UInt64, Int, CrashWorkload.Put)] = []
        var lsn: UInt64 = 1
        for (index, batch) in (outcome.acknowledged + [outcome.inFlight ?? []]).enumerated() {
            for put in batch {
                result.append((lsn, index, put))
                lsn += 1
            }
        }
        return result
    }

    /// Throws a violation when the log's records are not a clean prefix of the committed batches, lose a batch
    /// reported durable, or show a record that was superseded.
    func check(_ records: [Record]) throws {
        let issued = self.issued
        var visibleBatch = -1
        var seen: [[UInt8]: UInt64] = [:]
        for record in records {
            let index = Int(record.lsn) - 1
            guard index >= 0, index < issued.count else {
                throw Violation(description: "record with LSN \(record.lsn) was never committed")
            }
            let expected = issued[index]
            guard expected.put.key == record.key, expected.put.value == record.value, expected.put.kind == record.kind else {
                throw Violation(description: "record with LSN \(record.lsn) has the wrong contents")
            }
            visibleBatch = max(visibleBatch, expected.batch)
            if record.lsn > seen[record.key] ?? 0 { seen[record.key] = record.lsn }
        }
        if visibleBatch < outcome.durableBatches - 1 {
            throw Violation(
                description: "durable batch \(outcome.durableBatches - 1) lost; last visible batch is \(visibleBatch)")
        }
        var expected: [[UInt8]: UInt64] = [:]
        for item in issued where item.batch <= visibleBatch { expected[item.put.key] = item.lsn }
        if seen != expected {
            let wrong = expected.keys.filter { seen[$0] != expected[$0] }.map { String(decoding: $0, as: UTF8.self) }
            throw Violation(
                description: "visible state is not the state after batch \(visibleBatch): keys \(wrong.sorted().prefix(5)) differ"
                    + " (a lost record, a partial batch, or a resurrected superseded record)")
        }
    }
}
