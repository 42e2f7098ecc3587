import ArgumentParser

@main
struct CairnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn",
        abstract: "Cairn's command-line tool: a demonstration of the storage engine, and log maintenance.",
        subcommands: [
            DemoCommand.self, VerifyCommand.self, InspectCommand.self, DumpCommand.self, StatsCommand.self,
            CompactCommand.self, CrashWriterCommand.self,
        ])
}
