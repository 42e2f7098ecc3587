import CairnTestSupport
import Foundation
import Testing

/// Firebase's official Python Admin SDK as a third party: the script `Interop/admin_e2e.py` (`read PATH`,
/// `set PATH JSON`), run through ``AdminSDKPython``. Without firebase-admin the parts that need it are skipped;
/// under `CI=true` they run and fail.
enum AdminSDK {
    static let script = AdminSDKPython.root.appendingPathComponent("Tests/CairnDatabaseEndToEndTests/Interop/admin_e2e.py").path

    static let shouldRun = AdminSDKPython.missingReason == nil || AdminSDKPython.isCI
    static let skipReason = Comment(
        rawValue: "Admin SDK parts skipped: \(AdminSDKPython.missingReason ?? "the venv is available"); set CI=true to make this a failure")

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

    private static func runScript(_ arguments: [String], port: Int, namespace: String) async throws -> AdminSDKPython.Outcome {
        try #require(AdminSDKPython.missingReason == nil, "\(AdminSDKPython.missingReason ?? "")")
        return try await AdminSDKPython.run(script: script, arguments: [namespace] + arguments, port: port)
    }
}
