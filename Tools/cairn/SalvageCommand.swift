import ArgumentParser
import CairnDatabaseCore
import CairnLocalStore

/// `cairn salvage DIR --output NEW`: rebuilds a damaged cache from its intact frames into a new directory
/// (``CacheSalvage``); DIR is only read.
struct SalvageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvage",
        abstract: "Copy every intact record of a damaged cache into a new directory.",
        discussion: """
            For a cache that `verify` reports damaged (a Firestore or a Realtime Database cache): copies DIR's files into --output (which must not exist) \
            and rebuilds the copy from every intact frame (SegmentLog.salvage). Whole batches only: a batch \
            whose commit frame is damaged is dropped, and so is everything after a damaged range up to the next \
            commit frame. Prints the segments read, what was kept, every damaged range lost, and whether the \
            salvaged cache replays.
            DIR is only read (copied) and never changes, so --output cannot lie inside it; a directory a \
            running app holds is refused. Check the result with `cairn verify`, then, with the app closed, \
            replace DIR with it (or delete DIR: the app rebuilds its cache from the server, losing only its \
            pending writes).
            Exit status: 0 the salvaged cache opens, 1 it still cannot be replayed, 2 usage error, not a cache, \
            locked, or an I/O error.

            Example:
              cairn salvage cache --output cache-salvaged && cairn verify cache-salvaged
            """)

    @Argument(help: "The damaged cache directory (only read).")
    var directory: String

    @Option(help: ArgumentHelp("A new directory for the salvaged cache.", valueName: "directory"))
    var output: String

    func run() throws {
        var kind = "Firestore"
        let result = try reportingInspectionErrors {
            try CacheSalvage.salvage(from: directory, to: output) { salvaged in
                guard DatabaseCacheDetection.isDatabaseCache(at: salvaged) else {
                    return try CacheSalvage.firestoreReplayProblem(at: salvaged)
                }
                kind = "Realtime Database"
                return try Self.databaseReplayProblem(at: salvaged)
            }
        }
        let report = result.report
        print("salvaged \(result.source) (a \(kind) cache) into \(result.output)")
        print("read segment(s) \(report.segmentsRead.map(String.init).joined(separator: ", "))"
              + (report.manifestWasUnreadable ? " (the manifest was unreadable: every segment file was read)" : ""))
        print("kept: \(report.recordsKept) record(s) in \(report.framesKept) frame(s)")
        print("lost: \(report.damage.count) damaged range(s), and \(report.framesOfUnfinishedBatches) intact frame(s) "
              + "of unfinished batches holding \(report.recordsOfUnfinishedBatches) record(s)")
        for damage in report.damage { print("  damage: \(damage)") }
        if let problem = result.replayProblem {
            printError("cairn: corruption: the salvaged cache still cannot be replayed: \(problem)")
            throw ExitCode(1)
        }
        print("the salvaged cache opens; check it with `cairn verify \(result.output)`")
    }

    /// Why the salvaged Realtime Database cache in `directory` cannot be replayed, nil when it opens.
    private static func databaseReplayProblem(at directory: String) throws -> String? {
        do throws(PersistenceError) {
            let inspector = try DatabaseCacheInspector.open(at: directory)
            defer { inspector.close() }
            return inspector.replayProblem
        } catch {
            throw InspectionError(error.isDamage ? .corruption : .io, error.message)
        }
    }
}
