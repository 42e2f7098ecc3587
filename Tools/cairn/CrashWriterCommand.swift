import ArgumentParser
import CairnTestSupport
import SegmentLog

#if canImport(Glibc)
import Glibc
#endif

/// Appends batches forever with durable commits, printing each acknowledged batch number on stdout, so a
/// parent process can kill it at any moment and check that every acknowledged batch survived.
struct CrashWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-writer",
        abstract: "Append durable batches until killed, acknowledging each on stdout (used by the demo and tests).",
        shouldDisplay: false)

    @Argument(help: "The log directory.")
    var directory: String

    @Option(help: "Stop after this many batches (default: run until killed).")
    var batches: Int?

    func run() throws {
        let log = try SegmentLog.open(at: directory)
        guard case .success(let existing) = try CrashWriterWorkload.check(log) else {
            throw ValidationError("the log in \(directory) does not hold a crash-writer prefix")
        }
        var i = existing
        while batches.map({ i < existing + $0 }) ?? true {
            try log.commit(CrashWriterWorkload.batch(i))
            var line = Array("\(i)\n".utf8)
            _ = line.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
            i += 1
        }
        try log.close()
    }
}
