import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `cairn database-child` process (Tools/cairn/DatabaseChildCommand.swift), started at once. Output goes to
/// private temporary files (a chatty child can never block on a full pipe); every wait polls with `Task.sleep`
/// under a generous hang guard, and ``kill()`` (called from the test's `defer`) ends it with SIGKILL whatever
/// happened, so no child outlives its test.
final class DatabaseChild: @unchecked Sendable, CustomStringConvertible {
    /// The `cairn` executable built next to the test bundle (`swift build --build-tests` builds every product), or
    /// `$CAIRN_BINARY`.
    static let cairn: String = {
        if let path = ProcessInfo.processInfo.environment["CAIRN_BINARY"] { return path }
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return products.appendingPathComponent("cairn").path
    }()

    /// How long any wait on a child may take before the test fails (the machine may be loaded; no timing is
    /// asserted).
    static let hangGuard: Double = 180

    private let process = Process()
    private let arguments: [String]
    private let scratch: URL
    private var stdoutURL: URL { scratch.appendingPathComponent("stdout") }
    private var stderrURL: URL { scratch.appendingPathComponent("stderr") }

    /// Runs `cairn COMMAND ARGUMENTS` (the hidden `database-child` by default; the server tests run
    /// `database-emulator` the same way, see ``EmulatorProcess``).
    init(command: String = "database-child", _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.cairn), "\(Self.cairn) is missing or not executable",
                     sourceLocation: sourceLocation)
        self.arguments = [command] + arguments
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-\(command)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for file in [stdoutURL, stderrURL] {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        process.executableURL = URL(fileURLWithPath: Self.cairn)
        process.arguments = self.arguments
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// The lines the child printed so far, trimmed.
    var lines: [String] {
        let text = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    var description: String {
        let errors = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        return "cairn \(arguments.joined(separator: " ")): stdout \(lines); stderr \(errors.suffix(2000).debugDescription)"
    }

    /// Waits until the child printed `line`; false if it ended first or the hang guard passed.
    func waitForLine(_ line: String) async -> Bool {
        let deadline = Date().addingTimeInterval(Self.hangGuard)
        while Date() < deadline {
            if lines.contains(line) { return true }
            if !process.isRunning { return lines.contains(line) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Waits until the child ended and returns its exit status; nil (after killing it) if the hang guard passed.
    func waitForExit() async -> Int32? {
        let deadline = Date().addingTimeInterval(Self.hangGuard)
        while process.isRunning {
            if Date() > deadline {
                kill()
                return nil
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// Whether the child is still running.
    var isRunning: Bool { process.isRunning }

    /// Ends the child with SIGKILL (no clean shutdown) if it still runs.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// SIGKILLs the child and waits (polling) until it is gone.
    func killAndWait() async {
        kill()
        let deadline = Date().addingTimeInterval(Self.hangGuard)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    }
}
