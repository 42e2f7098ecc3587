import Foundation

/// A system program used by tests and the demo (`openssl`, `nginx`): found on `PATH` or in the system
/// directories (`nginx` lives in `/usr/sbin`, which a user's `PATH` often lacks), and run to its end without
/// blocking a Swift concurrency thread (the exit is awaited through the process's termination handler).
///
/// ```swift
/// guard let openssl = ExternalTool.find("openssl") else { return }
/// try await ExternalTool.run(openssl, ["version"])
/// ```
public enum ExternalTool {
    /// The directories searched after `PATH`.
    static let systemDirectories = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// The executable `name` on `PATH` or in the system directories, nil when there is none.
    public static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + systemDirectories
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `arguments` in `directory` and returns its output (stdout and stderr together);
    /// a non-zero exit is an error carrying that output.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-tool-\(getpid())-\(UUID().uuidString.prefix(8)).out")
        guard FileManager.default.createFile(atPath: output.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: output.path)
        else {
            throw ExternalToolError("cannot create the output file \(output.path) for \(executable)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: ExternalToolError("cannot start \(executable): \(error)"))
            }
        }
        try? handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let command = ([executable] + arguments).joined(separator: " ")
            throw ExternalToolError("`\(command)` exited with status \(status): \(text.suffix(2000))")
        }
        return text
    }
}

/// A system program that is missing, could not start, or failed, with its output.
public struct ExternalToolError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
