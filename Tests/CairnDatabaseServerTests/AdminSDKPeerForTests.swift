import CairnTestSupport
import Foundation
import Testing

/// Firebase's official Python Admin SDK as an independent client of the server: the script `Interop/admin_peer.py`,
/// run through ``AdminSDKPython``. Without firebase-admin the interop suite is skipped with one line; under
/// `CI=true` it runs and fails.
enum AdminSDKPeer {
    static let script = AdminSDKPython.root.appendingPathComponent("Tests/CairnDatabaseServerTests/Interop/admin_peer.py").path

    static let shouldRun = AdminSDKPython.missingReason == nil || AdminSDKPython.isCI
    static let skipReason = Comment(
        rawValue: "Admin SDK interop tests skipped: \(AdminSDKPython.missingReason ?? "the venv is available"); set CI=true to make this a failure")

    /// Runs the peer script against the server on `port`, for `namespace`.
    static func runScript(port: Int, namespace: String) async throws -> AdminSDKPython.Outcome {
        try #require(AdminSDKPython.missingReason == nil, "\(AdminSDKPython.missingReason ?? "")")
        return try await AdminSDKPython.run(script: script, arguments: [namespace], port: port)
    }
}
