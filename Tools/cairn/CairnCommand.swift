import ArgumentParser
import Foundation

@main
struct CairnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn",
        abstract: "Cairn's command-line tool: a storage-engine demo, and a look into a cache directory.",
        discussion: """
            inspect, dump, verify and stats read Firestore and Realtime Database caches; the other cache commands work on \
            Firestore caches only.
            The cache commands (inspect, dump, verify, stats, outbox) open the directory read-only and never \
            change a byte; compact and gc change it and take its lock; salvage writes a new directory and only \
            reads the damaged one. A directory a running app holds is \
            refused: close the app, or copy the directory and work on the copy.
            Exit status: 0 success, 1 damage found, 2 usage error, not a cache, locked, or an I/O error.
            """,
        subcommands: [
            DemoCommand.self, InspectCommand.self, DumpCommand.self, VerifyCommand.self, StatsCommand.self,
            OutboxCommand.self, CompactCommand.self, GarbageCollectCommand.self, SalvageCommand.self, FixtureCommand.self,
            CrashWriterCommand.self, SyncChildCommand.self, DatabaseEmulatorCommand.self, DatabaseChildCommand.self,
            DatabaseDemoClientCommand.self,
        ])

    /// As ArgumentParser's, except for the exit statuses: usage errors exit 2 (not 64), and so does any other
    /// unexpected error, so that 1 always means "damage found".
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(2)
            }
            if code == .failure, !(error is ExitCode) {
                printError("cairn: error: \(error)")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
