import CairnCore
import CairnModel
import Foundation

/// Where and how the gRPC client connects: Cloud Firestore over TLS with an auth token, or the emulator in
/// plaintext with `Authorization: Bearer owner`.
///
/// ```swift
/// // Production: TLS to firestore.googleapis.com:443; the provider returns an OAuth2 or Firebase ID token.
/// let production = FirestoreRPCConfiguration.production(databaseID: DatabaseID(projectID: "my-app")) { forceRefresh in
///     try await myTokenSource.currentToken(refreshing: forceRefresh)
/// }
/// // The emulator, as `db.useEmulator(withHost: "127.0.0.1", port: 8080)` would set it up.
/// let emulator = FirestoreRPCConfiguration.emulator(databaseID: database, host: "127.0.0.1", port: 8080)
/// // FIRESTORE_EMULATOR_HOST=host:port overrides production settings, as in the official SDKs.
/// let chosen = production.applyingEmulatorEnvironment()
/// ```
package struct FirestoreRPCConfiguration: Sendable {
    /// Returns the bearer token for the next call (without the `Bearer ` prefix), or nil to send no
    /// `authorization` header. Called before every RPC and stream start; cache inside the provider. `forceRefresh`
    /// is true once after the server answered `unauthenticated`: the cached token was refused, fetch a new one.
    package typealias AuthTokenProvider = @Sendable (_ forceRefresh: Bool) async throws -> String?

    /// The production host of Cloud Firestore.
    package static let productionHost = "firestore.googleapis.com"
    /// The environment variable that points every client at an emulator (`host:port`).
    package static let emulatorHostVariable = "FIRESTORE_EMULATOR_HOST"

    package var databaseID: DatabaseID
    package var host: String
    package var port: Int
    /// TLS (production, or a TLS proxy) or plaintext (the emulator).
    package var usesTLS: Bool
    /// The certificate authorities a TLS connection trusts (unused in plaintext).
    package var trustRoots: TLSTrustRoots
    package var authTokenProvider: AuthTokenProvider?

    package init(
        databaseID: DatabaseID, host: String, port: Int, usesTLS: Bool, trustRoots: TLSTrustRoots = .system,
        authTokenProvider: AuthTokenProvider?
    ) {
        self.databaseID = databaseID
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.trustRoots = trustRoots
        self.authTokenProvider = authTokenProvider
    }

    /// Cloud Firestore: TLS to `firestore.googleapis.com:443`, tokens from `authTokenProvider`.
    package static func production(
        databaseID: DatabaseID, authTokenProvider: AuthTokenProvider? = nil
    ) -> FirestoreRPCConfiguration {
        FirestoreRPCConfiguration(
            databaseID: databaseID, host: productionHost, port: 443, usesTLS: true,
            authTokenProvider: authTokenProvider)
    }

    /// The Firestore emulator in plaintext. By default with the token `owner`, which the emulator lets bypass
    /// security rules; `auth` selects a signed-out or mock user instead, for whom the rules apply.
    package static func emulator(
        databaseID: DatabaseID, host: String, port: Int, auth: EmulatorAuth = .owner
    ) -> FirestoreRPCConfiguration {
        FirestoreRPCConfiguration(
            databaseID: databaseID, host: host, port: port, usesTLS: false,
            authTokenProvider: { _ in auth.token(projectID: databaseID.projectID) })
    }

    /// This configuration, or the emulator's when `FIRESTORE_EMULATOR_HOST` is set to `host:port` in
    /// `environment`. A malformed value is an `invalidArgument` error naming the expected form.
    package func applyingEmulatorEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FirestoreErrorCode) -> FirestoreRPCConfiguration {
        guard let value = environment[Self.emulatorHostVariable], !value.isEmpty else { return self }
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
            (1...65535).contains(port), colon != value.startIndex
        else {
            throw FirestoreErrorCode(
                .invalidArgument,
                "\(Self.emulatorHostVariable)=\(value) is not of the form host:port (for example 127.0.0.1:8080).")
        }
        var host = String(value[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return .emulator(databaseID: databaseID, host: host, port: port)
    }
}
