import ArgumentParser
import CairnLocalStore

/// `cairn outbox DIR`: the pending mutation batches, from ``CacheInspector/outbox()``.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List the pending write batches in the order they will be sent, with their writes.",
        discussion: """
            One block per batch: its id, the user who wrote it, its local write time and location, then one line \
            per write as JSON (op, key, fields, mask, precondition, transforms; types marked as in `cairn dump`). \
            Base writes (the values increments started from) are listed with "base".
            Opens the directory read-only and changes nothing.

            Example:
              cairn outbox cache
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    func run() throws {
        try refuseDatabaseCache(directory, command: "outbox")
        let batches = try withInspector(directory) { try $0.outbox() }
        print("\(batches.count) pending batch(es)")
        for batch in batches {
            print("batch \(batch.batchID) of \(userName(batch.user)), written \(InspectionJSON.formatTimestamp(batch.localWriteTime))"
                  + (batch.location.map { " at \($0)" } ?? "") + ", \(batch.writes.count) write(s)")
            for write in batch.baseWrites { print("  base  \(write.render())") }
            for write in batch.writes { print("  write \(write.render())") }
        }
    }
}
