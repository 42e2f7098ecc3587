import CairnCore
import Cairn
import Foundation
import Testing

/// A program run by a test as a child process: the built `cairn` tool or the Python peer. Output goes to
/// temporary files (a chatty child can never block on a full pipe); a child still running after a generous hang
/// guard is killed and the test fails naming it (no timing is asserted).
struct ChildProcess {
    struct Outcome: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The lines of stdout, trimmed.
        var lines: [String] { stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }

        var description: String { "exit status \(status); stdout: \(stdout.debugDescription); stderr: \(stderr.suffix(2000).debugDescription)" }
    }

    /// The `cairn` executable built next to the test bundle (the build's products directory), or `$CAIRN_BINARY`.
    /// `swift build --build-tests` builds every product, so it is there after the README's build.
    static let cairn: String = {
        if let path = ProcessInfo.processInfo.environment["CAIRN_BINARY"] { return path }
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return products.appendingPathComponent("cairn").path
    }()

    var executable: String
    var arguments: [String]
    /// Variables added to this process's environment.
    var environment: [String: String] = [:]
    /// Bytes written to the child's stdin (then closed).
    var input = Data()

    /// Runs the child to its end and returns its exit status and output.
    func run(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Outcome {
        try #require(
            FileManager.default.isExecutableFile(atPath: executable), "\(executable) is missing or not executable",
            sourceLocation: sourceLocation)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: input)
        try stdin.fileHandleForWriting.close()
        var polls = 0
        while process.isRunning && polls < 6000 {
            try await Task.sleep(for: .milliseconds(20))
            polls += 1
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("\(executable) \(arguments) did not finish and was killed", sourceLocation: sourceLocation)
        }
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }
}
