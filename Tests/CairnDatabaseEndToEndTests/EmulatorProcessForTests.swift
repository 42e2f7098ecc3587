import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `cairn database-emulator` process on a free port (`--port 0`), started at once; output goes to private
/// temporary files. Every wait polls with `Task.sleep` under a hang guard; ``kill()`` ends it with SIGKILL.
final class EmulatorProcess: @unchecked Sendable, CustomStringConvertible {
    private let process = Process()
    private let arguments: [String]
    private let scratch: URL
    private var stdoutURL: URL { scratch.appendingPathComponent("stdout") }
    private var stderrURL: URL { scratch.appendingPathComponent("stderr") }

    init(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(FileManager.default.isExecutableFile(atPath: DatabaseChild.cairn), "\(DatabaseChild.cairn) is missing or not executable",
                     sourceLocation: sourceLocation)
        self.arguments = ["database-emulator", "--port", "0"] + arguments
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-database-emulator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for file in [stdoutURL, stderrURL] {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        process.executableURL = URL(fileURLWithPath: DatabaseChild.cairn)
        process.arguments = self.arguments
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: scratch)
    }

    var description: String {
        let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        return "cairn \(arguments.joined(separator: " ")): stdout \(output.debugDescription); stderr \(errors.suffix(2000).debugDescription)"
    }

    /// The port from the ready line (`Realtime Database server ready: http://HOST:PORT ...`); nil if the process
    /// ended first or the hang guard passed.
    func waitForPort() async -> Int? {
        let deadline = Date().addingTimeInterval(DatabaseChild.hangGuard)
        while Date() < deadline {
            let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Realtime Database server ready: http://") }),
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
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// SIGKILLs the process and waits (polling) until it is gone.
    func killAndWait() async {
        kill()
        let deadline = Date().addingTimeInterval(DatabaseChild.hangGuard)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    }
}
