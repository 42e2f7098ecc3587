import Foundation
import Testing

/// Firebase's official Python Admin SDK (`firebase-admin`, module `firebase_admin.db`) as an independent client
/// of the server: the script `Interop/admin_peer.py`, run with the venv `make interop-venv` builds in
/// `.venv-interop` (or the interpreter in `$CAIRN_INTEROP_PYTHON`) and `FIREBASE_DATABASE_EMULATOR_HOST`.
/// Without firebase-admin the interop suite is skipped with one line; under `CI=true` it runs and fails.
enum AdminSDKPeer {
    /// The repository's root: this file is Tests/CairnDatabaseServerTests/AdminSDKPeerForTests.swift.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let python: String =
        ProcessInfo.processInfo.environment["CAIRN_INTEROP_PYTHON"] ?? root.appendingPathComponent(".venv-interop/bin/python").path

    static let script = root.appendingPathComponent("Tests/CairnDatabaseServerTests/Interop/admin_peer.py").path

    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Why the peer cannot run here, nil when it can.
    static let missingReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "the Python interop venv is missing (\(python)); run `make interop-venv`"
        }
        guard let outcome = try? run(python, ["-c", "import firebase_admin.db"], environment: [:]), outcome.status == 0 else {
            return "firebase-admin is not installed in \(python); run `make interop-venv`"
        }
        return nil
    }()

    static let shouldRun = missingReason == nil || isCI
    static let skipReason = Comment(
        rawValue: "Admin SDK interop tests skipped: \(missingReason ?? "the venv is available"); set CI=true to make this a failure")

    struct Outcome: Sendable, CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors.suffix(4000))" }
    }

    /// Runs the peer script against the server on `port`, for `namespace`. The wait for the script happens on a
    /// dispatch thread: blocking one of the cooperative pool's few threads could starve the in-process server the
    /// script talks to.
    static func runScript(port: Int, namespace: String) async throws -> Outcome {
        try #require(missingReason == nil, "\(missingReason ?? "")")
        let (python, script) = (Self.python, Self.script)
        let result: Result<Outcome, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result {
                    try run(python, [script, namespace], environment: [
                        "FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:\(port)", "PYTHONDONTWRITEBYTECODE": "1",
                    ])
                })
            }
        }
        return try result.get()
    }

    private static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        // Standard error goes to a file, so that neither pipe can fill up while the other is read.
        let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-admin-peer-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil, attributes: [.posixPermissions: 0o600])
        defer { try? FileManager.default.removeItem(at: errorsURL) }
        let errors = try FileHandle(forWritingTo: errorsURL)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errors.close()
        let errorData = (try? Data(contentsOf: errorsURL)) ?? Data()
        return Outcome(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                       errors: String(decoding: errorData, as: UTF8.self))
    }
}
