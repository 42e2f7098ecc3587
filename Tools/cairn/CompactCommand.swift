import ArgumentParser
import SegmentLog

/// `cairn compact DIR`: retires every record that is not the newest of its key, then compacts the sealed
/// segments whose dead share reaches `--min-dead-ratio`, in bounded steps. With `--dry-run` it opens the log
/// read-only and only lists what it would compact.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Drop records superseded by a newer record of the same key from sealed segments.",
        discussion: """
            Treats the newest record of each key as the only live one, which fits logs whose records are \
            superseded by key. It is WRONG for a Cairn cache (the LocalStore keeps several live records under \
            one key, e.g. a target and its membership): such logs must be compacted through the LocalStore. \
            So compacting requires --latest-per-key, which says you know the log follows that rule.
            Takes the log's lock (fails while a writer has it open), except with --dry-run, which changes nothing.
            Exit status: 0 success, 1 corruption found, 2 not a log, locked, or an I/O error.
            """)

    @Argument(help: "The log directory.")
    var directory: String

    @Flag(help: "List the segments that would be compacted and change nothing.")
    var dryRun = false

    @Flag(help: "Confirm that only the newest record of each key matters in this log (required to compact).")
    var latestPerKey = false

    @Option(help: "Compact sealed segments whose share of dead record bytes is at least this (0...1).")
    var minDeadRatio: Double = 0.5

    @Option(help: "Bytes of work per compaction step.")
    var stepBytes: Int = 4 << 20

    func validate() throws {
        guard (0...1).contains(minDeadRatio) else { throw ValidationError("--min-dead-ratio must be between 0 and 1") }
        guard stepBytes > 0 else { throw ValidationError("--step-bytes must be positive") }
        guard dryRun || latestPerKey else {
            throw ValidationError(
                "compact drops every record but the newest of its key; pass --latest-per-key if that is right for "
                    + "this log, or --dry-run to see what it would do (never use it on a Cairn cache)")
        }
    }

    func run() throws {
        try reportingStorageErrors {
            let log: SegmentLog
            if dryRun {
                log = try openReadOnly(directory)
            } else {
                log = try SegmentLog.open(at: directory)
            }
            defer { try? log.close() }
            try compact(log)
        }
    }

    private func compact(_ log: SegmentLog) throws {
        var newest: [[UInt8]: (lsn: UInt64, location: RecordLocation)] = [:]
        try log.scan { view in
            let key = view.keyBytes
            if let current = newest[key] {
                if current.lsn > view.lsn {
                    log.retire(view.location)
                    return
                }
                log.retire(current.location)
            }
            newest[key] = (view.lsn, view.location)
        }
        let before = log.statistics
        print("before: \(summary(before))")
        let victims = log.compactionCandidates(minimumDeadRatio: minDeadRatio)
        guard !victims.isEmpty else {
            print("nothing to compact: no sealed segment has \(formatPercent(minDeadRatio)) or more dead record bytes")
            return
        }
        let byID = Dictionary(uniqueKeysWithValues: before.segments.map { ($0.id, $0) })
        let reclaimable = victims.reduce(UInt64(0)) { $0 + byID[$1]!.reclaimableFileBytes }
        print("\(dryRun ? "would compact" : "compacting") \(victims.count) segment(s), about \(formatBytes(reclaimable)) to free:")
        for id in victims {
            let s = byID[id]!
            print("  segment \(id): \(formatBytes(s.fileBytes)), \(formatPercent(s.deadRatio)) dead")
        }
        if dryRun {
            print("dry run: nothing changed")
            return
        }
        // Every superseded record was retired above, and compaction drops retired records by itself.
        let compaction = try log.makeCompaction(of: victims) { _ in true }
        var steps = 0
        while true {
            steps += 1
            if let result = try compaction.step(budget: stepBytes) {
                printError("step \(steps): published segment(s) \(result.outputs.map(String.init).joined(separator: ", "))")
                print("compacted: kept \(result.recordsKept) record(s), dropped \(result.recordsDropped); "
                      + "\(formatBytes(result.bytesBefore)) of segments became \(formatBytes(result.bytesAfter))")
                break
            }
            printError("step \(steps): about \(formatBytes(UInt64(steps * stepBytes))) read or copied")
        }
        print("after: \(summary(log.statistics))")
    }

    private func summary(_ statistics: LogStatistics) -> String {
        let deadShare = statistics.recordBytes == 0 ? 0 : Double(statistics.deadRecordBytes) / Double(statistics.recordBytes)
        return "\(statistics.segments.count) segment(s), \(formatBytes(statistics.fileBytes)) on disk, "
            + "\(statistics.recordCount) record(s), \(formatPercent(deadShare)) of record bytes dead"
    }
}
