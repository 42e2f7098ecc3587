import Foundation
import Testing

/// Firebase's official Python Admin SDK as a third party: the script `Interop/admin_e2e.py` (`read PATH`,
/// `set PATH JSON`), run with the venv `make interop-venv` builds in `.venv-interop` (or the interpreter in
/// `$CAIRN_INTEROP_PYTHON`) and `FIREBASE_DATABASE_EMULATOR_HOST`. Without firebase-admin the parts that need it
/// are skipped; under `CI=true` they run and fail.
enum AdminSDK {
    /// The repository's root: this file is Tests/CairnDatabaseEndToEndTests/AdminSDKForTests.swift.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let python: String =
        ProcessInfo.processInfo.environment["CAIRN_INTEROP_PYTHON"] ?? root.appendingPathComponent(".venv-interop/bin/python").path

    static let script = root.appendingPathComponent("Tests/CairnDatabaseEndToEndTests/Interop/admin_e2e.py").path

    /// Why the Admin SDK cannot run here, nil when it can.
    static let missingReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "the Python interop venv is missing (\(python)); run `make interop-venv`"
        }
        guard let outcome = try? run(["-c", "import firebase_admin.db"], port: 0), outcome.status == 0 else {
            return "firebase-admin is not installed in \(python); run `make interop-venv`"
        }
        return nil
    }()

    static let shouldRun = missingReason == nil || ProcessInfo.processInfo.environment["CI"] == "true"
    static let skipReason = Comment(
        rawValue: "Admin SDK parts skipped: \(missingReason ?? "the venv is available"); set CI=true to make this a failure")

    struct Outcome: Sendable, CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors.suffix(4000))" }
    }

    /// The JSON value at `path` on the server on `port`, as `JSONSerialization` reads it (`NSNull` for nothing).
    static func read(_ path: String, port: Int, namespace: String) async throws -> Any {
        let outcome = try await runScript(["read", path], port: port, namespace: namespace)
        try #require(outcome.status == 0, "\(outcome)")
        return try JSONSerialization.jsonObject(with: Data(outcome.output.utf8), options: [.fragmentsAllowed])
    }

    /// Sets `path` to the value of `json` on the server on `port`.
    static func set(_ path: String, json: String, port: Int, namespace: String) async throws {
        let outcome = try await runScript(["set", path, json], port: port, namespace: namespace)
        try #require(outcome.status == 0 && outcome.output.hasPrefix("ok"), "\(outcome)")
    }

    /// Runs the script; the wait happens on a dispatch thread, so that no thread of the cooperative pool (which the
    /// in-process server and clients need) blocks.
    private static func runScript(_ arguments: [String], port: Int, namespace: String) async throws -> Outcome {
        try #require(missingReason == nil, "\(missingReason ?? "")")
        let arguments = [script, namespace] + arguments
        let result: Result<Outcome, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { try run(arguments, port: port) }) }
        }
        return try result.get()
    }

    private static func run(_ arguments: [String], port: Int) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:\(port)", "PYTHONDONTWRITEBYTECODE": "1",
        ]) { $1 }
        let output = Pipe()
        // Standard error goes to a file, so that neither pipe can fill up while the other is read.
        let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-admin-e2e-\(UUID().uuidString).err")
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
