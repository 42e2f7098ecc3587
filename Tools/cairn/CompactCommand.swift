import ArgumentParser
import CairnLocalStore

/// `cairn compact DIR [--dry-run]`: offline compaction through the cache (``CacheMaintenance``).
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite the sealed segments whose records are mostly superseded, freeing their space.",
        discussion: """
            Replays the cache, which decides exactly which records are superseded, then rewrites every sealed \
            segment whose dead share of record bytes reaches --min-dead-ratio without them. Progress goes to \
            stderr; a before/after summary to stdout.
            Takes the directory's lock: refused while an app has the cache open. With --dry-run the directory \
            is opened read-only and only the segments that would be compacted are listed.

            Example:
              cairn compact cache --dry-run && cairn compact cache
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @Flag(help: "List what would be compacted and change nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Compact sealed segments whose share of dead record bytes is at least this (0...1).",
                               valueName: "ratio"))
    var minDeadRatio: Double = 0.5

    func validate() throws {
        guard (0...1).contains(minDeadRatio) else { throw ValidationError("--min-dead-ratio must be between 0 and 1") }
    }

    func run() throws {
        try refuseDatabaseCache(directory, command: "compact")
        if dryRun {
            let candidates = try withInspector(directory) { try $0.compactionCandidates(minimumDeadRatio: minDeadRatio) }
            guard !candidates.isEmpty else {
                print("nothing to compact: no sealed segment has \(formatPercent(minDeadRatio)) or more dead record bytes")
                return
            }
            print("would compact \(candidates.count) segment(s):")
            for s in candidates {
                print("  segment \(s.id): \(formatBytes(s.fileBytes)) on disk, \(formatPercent(s.deadRatio)) dead "
                      + "(\(s.deadRecordBytes) of \(s.recordBytes) record bytes)")
            }
            print("dry run: nothing changed")
            return
        }
        let result = try reportingInspectionErrors {
            try CacheMaintenance.compact(at: directory, minimumDeadRatio: minDeadRatio) { printError($0) }
        }
        print("before: \(describe(result.before))")
        print("after:  \(describe(result.after))")
        if result.steps == 0 { print("nothing to compact: no sealed segment has \(formatPercent(minDeadRatio)) or more dead record bytes") }
    }
}

/// `3 segment(s), 1.2 MiB on disk, 420 record(s), 12.0 KiB dead`.
func describe(_ size: CacheSize) -> String {
    "\(size.segments) segment(s), \(formatBytes(size.bytesOnDisk)) on disk (\(size.bytesOnDisk) B), \(size.records) record(s), "
        + "\(formatBytes(size.deadRecordBytes)) dead"
}
