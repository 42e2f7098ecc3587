import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `cairn database-demo-client` process (``DatabaseDemoClientCommand``) that ``DatabaseDemo`` drives: commands
/// go to its standard input, its standard output is read line by line on a thread of its own (so a chatty child
/// never blocks on a full pipe), and every wait polls with `Task.sleep` under a hang guard.
final class DatabaseDemoProcess: @unchecked Sendable {
    /// How long any wait on the client may take (the machine may be loaded; nothing is timed).
    static let hangGuard: Duration = .seconds(60)

    private let process = Process()
    private let input = Pipe()
    private let lines = Mutex<[String]>([])
    private let errors = Mutex<String>("")
    /// How many of ``lines`` the demo has shown; only the demo's task touches it.
    private var shown = 0

    /// Starts `cairn database-demo-client arguments` (this executable).
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["database-demo-client"] + arguments
        let output = Pipe(), errorOutput = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errorOutput
        try process.run()
        Self.read(output.fileHandleForReading) { [self] line in lines.withLock { $0.append(line) } }
        Self.read(errorOutput.fileHandleForReading) { [self] line in errors.withLock { $0 += line + "\n" } }
    }

    var pid: Int32 { process.processIdentifier }

    /// Sends one command line (SIGPIPE is ignored while the demo runs, so a client that died makes this throw).
    func send(_ command: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Shows (through `say`) every line the client printed up to the first line that begins with `marker`, and
    /// returns that line. Throws when the client reports `@error`, ends, or the hang guard passes first.
    func waitFor(_ marker: String, say: (String) -> Void) async throws -> String {
        let deadline = ContinuousClock.now + Self.hangGuard
        while true {
            let printed = lines.withLock { $0 }
            while shown < printed.count {
                let line = printed[shown]
                shown += 1
                if line.hasPrefix(marker) { return line }
                if line.hasPrefix("@error") { throw DatabaseDemoFailure("the client process failed: \(line.dropFirst(7))") }
                if !line.hasPrefix("@") { say(line) }
            }
            guard process.isRunning else {
                throw DatabaseDemoFailure("the client process ended (status \(process.terminationStatus)) before \(marker); "
                                          + "its standard error: \(errors.withLock { $0 }.suffix(2000))")
            }
            guard ContinuousClock.now < deadline else {
                throw DatabaseDemoFailure("the client process did not print \(marker) within \(Self.hangGuard)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Shows the lines printed since the last wait.
    func showRest(say: (String) -> Void) {
        let printed = lines.withLock { $0 }
        for line in printed[min(shown, printed.count)...] where !line.hasPrefix("@") { say(line) }
        shown = printed.count
    }

    /// Sends SIGKILL (no clean shutdown of any kind) and waits until the process is gone.
    func killHard() async throws {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let deadline = ContinuousClock.now + Self.hangGuard
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw DatabaseDemoFailure("the killed client process did not end") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// SIGKILL without waiting, for clean-up after a failure.
    func killNow() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Reads `handle` to its end on a thread of its own, calling `line` for each line.
    private static func read(_ handle: FileHandle, line: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { line(String(decoding: buffer, as: UTF8.self)) }
        }
        thread.start()
    }
}

/// A check of the Realtime Database demo that failed, or a client process that misbehaved.
struct DatabaseDemoFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
