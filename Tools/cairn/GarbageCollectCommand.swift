import ArgumentParser
import CairnLocalStore

/// `cairn gc DIR --threshold BYTES [--dry-run]`: offline LRU garbage collection (``CacheMaintenance``).
struct GarbageCollectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove least-recently-used targets and documents until the cache is under a size.",
        discussion: """
            Runs the cache's LRU garbage collection as the app would with this threshold: removes the least \
            recently used inactive targets and orphaned documents (in no target, under no pending write), \
            compacting as it goes, until the bytes on disk are under --threshold or nothing is left to collect. \
            Pending writes are never removed. Progress goes to stderr; a before/after summary and every removed \
            target and evicted document to stdout.
            Takes the directory's lock: refused while an app has the cache open. --dry-run runs on a temporary \
            copy and leaves the cache untouched; it lists exactly what a real run would remove.

            Example:
              cairn gc cache --threshold 1048576 --dry-run
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @Option(help: ArgumentHelp("Collect until the bytes on disk are at most this.", valueName: "bytes"))
    var threshold: Int64

    @Flag(help: "Run on a temporary copy and report what would be removed; change nothing.")
    var dryRun = false

    func validate() throws {
        guard threshold >= 0 else { throw ValidationError("--threshold must be a byte count (0 or more)") }
    }

    func run() throws {
        try refuseDatabaseCache(directory, command: "gc")
        let report = try reportingInspectionErrors {
            try CacheMaintenance.collectGarbage(at: directory, threshold: threshold, dryRun: dryRun) { printError($0) }
        }
        let verb = report.isDryRun ? "would " : ""
        print("before: \(describe(report.before))")
        print("after:  \(describe(report.after))\(report.isDryRun ? " (on the copy)" : "")")
        print("\(verb)remove \(report.removedTargets.count) target(s) and evict \(report.evictedDocuments.count) "
              + "document(s) in \(report.rounds) round(s)")
        for id in report.removedTargets { print("  \(verb)remove target \(id)") }
        for path in report.evictedDocuments { print("  \(verb)evict \(path)") }
        if report.isDryRun { print("dry run: nothing changed") }
    }
}
