import Foundation

/// Firebase's official Python Admin SDK (`firebase-admin`, module `firebase_admin.db`) run by tests against a
/// Realtime Database server on a loopback port, with the interpreter of the venv `make interop-venv` builds in
/// `.venv-interop` (or `$CAIRN_INTEROP_PYTHON`) and `FIREBASE_DATABASE_EMULATOR_HOST`. Each test target keeps its
/// own script and decides how a missing venv is reported (skipped with one line; a failure under `CI=true`).
///
/// ```swift
/// guard AdminSDKPython.missingReason == nil else { ... }
/// let outcome = try await AdminSDKPython.run(script: path, arguments: ["read", "/a"], port: port)
/// ```
package enum AdminSDKPython {
    /// The repository's root: this file is Sources/CairnTestSupport/AdminSDKPython.swift.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    package static let python: String =
        ProcessInfo.processInfo.environment["CAIRN_INTEROP_PYTHON"] ?? root.appendingPathComponent(".venv-interop/bin/python").path

    package static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Why the Admin SDK cannot run here, nil when it can.
    package static let missingReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "the Python interop venv is missing (\(python)); run `make interop-venv`"
        }
        guard let outcome = try? runBlocking(["-c", "import firebase_admin.db"], port: 0), outcome.status == 0 else {
            return "firebase-admin is not installed in \(python); run `make interop-venv`"
        }
        return nil
    }()

    package struct Outcome: Sendable, CustomStringConvertible {
        package var status: Int32
        package var output: String
        package var errors: String
        package var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors.suffix(4000))" }
    }

    /// Runs `script` with `arguments` against the server on `port`. The wait happens on a dispatch thread: blocking
    /// one of the cooperative pool's few threads could starve the in-process server the script talks to.
    package static func run(script: String, arguments: [String], port: Int) async throws -> Outcome {
        let all = [script] + arguments
        let result: Result<Outcome, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { try runBlocking(all, port: port) }) }
        }
        return try result.get()
    }

    private static func runBlocking(_ arguments: [String], port: Int) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:\(port)", "PYTHONDONTWRITEBYTECODE": "1",
        ]) { $1 }
        let output = Pipe()
        // Standard error goes to a file, so that neither pipe can fill up while the other is read.
        let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-admin-\(UUID().uuidString).err")
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
