import ArgumentParser

@main
struct CairnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn",
        abstract: "Inspect and exercise Cairn segment logs.",
        subcommands: [])
}
