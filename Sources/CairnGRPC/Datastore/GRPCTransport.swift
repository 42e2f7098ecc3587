import Cairn
import CairnModel

/// Plugs the gRPC transport into Cairn: after ``install(authTokenProvider:)`` every `Firestore` instance started
/// from then on talks to Cloud Firestore (or the emulator) instead of working offline only.
///
/// The host and TLS come from the instance's settings: `db.useEmulator(withHost:port:)` or
/// `FIRESTORE_EMULATOR_HOST=host:port` select the emulator (plaintext, by default the emulator's `owner` token,
/// see ``EmulatorAuth``); otherwise TLS to `settings.host` (port 443 unless the host names one) with the provider's
/// bearer token.
///
/// ```swift
/// import Cairn
/// import CairnGRPC
///
/// GRPCTransport.install()
/// let db = Firestore.firestore()
/// db.useEmulator(withHost: "127.0.0.1", port: 8080)
/// ```
public enum GRPCTransport {
    /// Makes every Firestore instance started from now on use gRPC. `authTokenProvider` returns the bearer token
    /// (an OAuth2 access token or a Firebase ID token) for TLS connections; `emulatorAuth` is who the emulator
    /// sees (`owner`, which bypasses security rules, unless a test of the rules asks for a user).
    public static func install(
        authTokenProvider: FirestoreRPCConfiguration.AuthTokenProvider? = nil, emulatorAuth: EmulatorAuth = .owner
    ) {
        DatastoreFactory.install { configuration, queue in
            makeDatastore(configuration, queue: queue, authTokenProvider: authTokenProvider, emulatorAuth: emulatorAuth)
        }
    }

    /// Goes back to Cairn's default: no transport, every instance works offline.
    public static func uninstall() {
        DatastoreFactory.uninstall()
    }

    /// The gRPC datastore of a client with `configuration`.
    static func makeDatastore(
        _ configuration: ClientConfiguration, queue: AsyncQueue,
        authTokenProvider: FirestoreRPCConfiguration.AuthTokenProvider?, emulatorAuth: EmulatorAuth = .owner
    ) -> GRPCDatastore {
        GRPCDatastore(
            configuration: rpcConfiguration(
                databaseID: configuration.databaseID, host: configuration.host,
                isSSLEnabled: configuration.isSSLEnabled, authTokenProvider: authTokenProvider,
                emulatorAuth: emulatorAuth),
            databaseID: configuration.databaseID, queue: queue)
    }

    /// The connection settings for a client's `host` (`name`, `name:port` or `[v6-address]:port`) and TLS flag:
    /// without TLS the emulator's (as `emulatorAuth`), with TLS the provider's token. A malformed port is an
    /// `invalidArgument` error naming the host.
    static func rpcConfiguration(
        databaseID: DatabaseID, host: String, isSSLEnabled: Bool,
        authTokenProvider: FirestoreRPCConfiguration.AuthTokenProvider?, emulatorAuth: EmulatorAuth = .owner
    ) -> Result<FirestoreRPCConfiguration, FirestoreErrorCode> {
        var name = host
        var port = isSSLEnabled ? 443 : 8080
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]"), host.hasPrefix("[") || host.firstIndex(of: ":") == colon {
            guard let parsed = Int(host[host.index(after: colon)...]), (1...65535).contains(parsed),
                colon != host.startIndex
            else {
                return .failure(
                    FirestoreErrorCode(
                        .invalidArgument,
                        "The Firestore host \"\(host)\" has no valid port; use host or host:port (1–65535)."))
            }
            name = String(host[..<colon])
            port = parsed
        }
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if isSSLEnabled {
            return .success(
                FirestoreRPCConfiguration(
                    databaseID: databaseID, host: name, port: port, usesTLS: true,
                    authTokenProvider: authTokenProvider))
        }
        return .success(.emulator(databaseID: databaseID, host: name, port: port, auth: emulatorAuth))
    }
}
