import CairnTestSupport
import Testing
@testable import SegmentLog

/// Crash at every I/O operation of a scripted workload (appends of all sizes, batches, segment rolls,
/// compaction, reopen), take what a disk would hold after power loss under each crash model, recover, and
/// check against the model: acknowledged durable batches present, only a clean prefix of batches visible,
/// nothing superseded resurrected. Every few points, crash again during recovery and check again.
@Suite("Crash consistency")
struct CrashConsistencyTests {
    static let workload = CrashWorkload(seed: 42, steps: 260)

    func recoverAndCheck(
        _ image: SimulatedFileSystem, _ outcome: CrashWorkload.Outcome, configuration: SegmentLog.Configuration, label: String
    ) throws {
        var configuration = configuration
        configuration.fileSystem = image
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        let records = try allRecords(log)
        try CrashOracle(outcome: outcome).check(records)
        #expect(log.statistics.recordCount == UInt64(records.count), "\(label): accounting matches the scan")
        // The recovered log accepts writes, and recovering again changes nothing.
        let next = try log.append(kind: 7, key: Array("after-crash".utf8), value: Array(label.utf8))
        try log.close()
        let again = try SegmentLog.open(at: "/db", configuration: configuration)
        let reread = try allRecords(again)
        #expect(reread.dropLast() == records[...], "\(label): a second recovery sees the same records")
        #expect(reread.last?.location == next, "\(label): the write after recovery survived")
        try again.close()
    }

    func explore(
        durability: Durability, stride step: Int, recoveryCrashEvery: Int, syncBehindEvery: Int? = nil
    ) throws -> (points: Int, recoveryPoints: Int) {
        let configuration = SegmentLog.Configuration.small(SimulatedFileSystem(), durability: durability)
        let clean = SimulatedFileSystem()
        let full = Self.workload.run(on: clean, configuration: .small(clean, durability: durability), syncBehindEvery: syncBehindEvery)
        #expect(full.error == nil, "the workload runs cleanly: \(String(describing: full.error))")
        #expect(full.compactions >= 5, "the workload compacts")
        let total = clean.operationCount
        var points = 0
        var recoveryPoints = 0
        let models = CrashModel.allCases
        for k in Swift.stride(from: 1, through: total, by: step) {
            let fs = SimulatedFileSystem(seed: UInt64(k))
            fs.crashAtOperation = k
            let outcome = Self.workload.run(on: fs, configuration: .small(fs, durability: durability), syncBehindEvery: syncBehindEvery)
            let model = models[k % models.count]
            let label = "crash at operation \(k) of \(total), model \(model), \(durability)"
            let image = fs.crashImage(model, seed: UInt64(k))
            do {
                if k % recoveryCrashEvery == 0 {
                    // Crash during recovery itself, then recover from that.
                    let secondCrash = 1 + (k / recoveryCrashEvery) % 6
                    image.crashAtOperation = image.operationCount + secondCrash
                    var recovering = configuration
                    recovering.fileSystem = image
                    if let log = try? SegmentLog.open(at: "/db", configuration: recovering) { try? log.close() }
                    let afterSecond = image.crashImage(models[(k / 2) % models.count], seed: UInt64(k) &* 31)
                    try recoverAndCheck(
                        afterSecond, outcome, configuration: configuration, label: label + ", then at recovery operation \(secondCrash)")
                    recoveryPoints += 1
                } else {
                    try recoverAndCheck(image, outcome, configuration: configuration, label: label)
                }
            } catch {
                Issue.record("\(label): \(error)")
                return (points, recoveryPoints)
            }
            points += 1
        }
        return (points, recoveryPoints)
    }

    @Test("durable commits survive a crash at every I/O operation, under every crash model")
    func fullDurability() throws {
        let (points, recoveryPoints) = try explore(durability: .full, stride: 1, recoveryCrashEvery: 5)
        print("crash consistency (.full): explored \(points) crash points, \(recoveryPoints) of them with a second crash during recovery")
        #expect(points > 1000, "thousands of crash points, not dozens")
    }

    @Test("a sync behind the commits makes them durable across segment rolls, at a crash at every I/O operation")
    func syncBehindCommits() throws {
        let (points, recoveryPoints) = try explore(durability: .none, stride: 1, recoveryCrashEvery: 7, syncBehindEvery: 3)
        print("crash consistency (sync behind commits): explored \(points) crash points, \(recoveryPoints) with a recovery crash")
        #expect(points > 500)
    }

    @Test("without syncs, a crash still leaves a clean prefix of whole batches")
    func noDurability() throws {
        let (points, recoveryPoints) = try explore(durability: .none, stride: 2, recoveryCrashEvery: 7)
        print("crash consistency (.none): explored \(points) crash points, \(recoveryPoints) with a recovery crash")
        #expect(points > 200)
    }
}
