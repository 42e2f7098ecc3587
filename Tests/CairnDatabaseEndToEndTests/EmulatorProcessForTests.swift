import Foundation
import Testing

/// A `cairn database-emulator` process on a free port (`--port 0`), started at once: a ``DatabaseChild`` running
/// that command (private output files, polling waits under the hang guard, SIGKILL from ``kill()``).
final class EmulatorProcess: Sendable, CustomStringConvertible {
    private let process: DatabaseChild

    init(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        process = try DatabaseChild(command: "database-emulator", ["--port", "0"] + arguments, sourceLocation: sourceLocation)
    }

    deinit { process.kill() }

    var description: String { process.description }

    /// The port from the ready line (`Realtime Database server ready: http://HOST:PORT ...`); nil if the process
    /// ended first or the hang guard passed.
    func waitForPort() async -> Int? {
        let deadline = Date().addingTimeInterval(DatabaseChild.hangGuard)
        while Date() < deadline {
            if let line = process.lines.first(where: { $0.hasPrefix("Realtime Database server ready: http://") }),
               let address = line.split(separator: " ").dropFirst(4).first,
               let port = address.split(separator: ":").last.flatMap({ Int($0) }) {
                return port
            }
            if !process.isRunning { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Ends the process with SIGKILL (no clean shutdown) if it still runs.
    func kill() { process.kill() }

    /// SIGKILLs the process and waits (polling) until it is gone.
    func killAndWait() async { await process.killAndWait() }
}
