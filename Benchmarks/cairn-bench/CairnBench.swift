// `cairn-bench`: Cairn's benchmarks. Each suite is a subcommand; all run their engines in one process with
// interleaved runs, print a table on standard output and progress on standard error, and can write JSON.

import ArgumentParser

/// The root command; `cairn-bench engine --json results.json` runs the storage engine suite,
/// `cairn-bench query --docs 100000 --svg query.svg` the offline query suite, `cairn-bench database` the Realtime
/// Database cache.
@main
struct CairnBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn-bench",
        abstract: "Benchmarks Cairn against SQLite and LevelDB, and the Realtime Database cache.",
        subcommands: [EngineCommand.self, QueryCommand.self, DatabaseCommand.self])
}
