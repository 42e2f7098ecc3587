import CairnCore
import CairnModel

/// The gRPC datastore of a `Firestore` instance, from its settings: `Firestore` makes every client's network
/// with ``provider(authTokenProvider:emulatorAuth:)`` unless its settings carry another datastore.
///
/// The host and TLS come from the instance's settings: `db.useEmulator(withHost:port:)` or
/// `FIRESTORE_EMULATOR_HOST=host:port` select the emulator (plaintext, by default the emulator's `owner` token,
/// see ``EmulatorAuth``, or the provider's tokens when `tokensForEmulator` says so: a credentials provider's);
/// otherwise TLS to `settings.host` (port 443 unless the host names one), trusting `settings.tlsTrustRoots`
/// (``TLSTrustRoots``, the system's by default), with the provider's bearer token.
///
/// ```swift
/// settings.datastoreProvider = GRPCDatastore.provider(authTokenProvider: nil, emulatorAuth: .user(uid: "alice"))
/// ```
extension GRPCDatastore {
    /// Makes, for each new client, a gRPC datastore to the client's host. `authTokenProvider` returns the bearer
    /// token for TLS connections, which trust `trustRoots`, and for the emulator too when `tokensForEmulator` is
    /// true (a credentials provider's tokens, mock ID tokens the emulator accepts); otherwise `emulatorAuth` is who
    /// the emulator sees (`owner`, which bypasses security rules, unless a test of the rules asks for a user).
    package static func provider(
        authTokenProvider: FirestoreRPCConfiguration.AuthTokenProvider?, emulatorAuth: EmulatorAuth = .owner,
        trustRoots: TLSTrustRoots = .system, tokensForEmulator: Bool = false
    ) -> DatastoreProvider {
        { info, queue in
            GRPCDatastore(
                configuration: rpcConfiguration(
                    databaseID: info.databaseID, host: info.host, isSSLEnabled: info.isSSLEnabled,
                    authTokenProvider: authTokenProvider, emulatorAuth: emulatorAuth, trustRoots: trustRoots,
                    tokensForEmulator: tokensForEmulator),
                databaseID: info.databaseID, queue: queue)
        }
    }

    /// The connection settings for a client's `host` (`name`, `name:port` or `[v6-address]:port`) and TLS flag:
    /// without TLS the emulator's (as `emulatorAuth`, or the provider's token when `tokensForEmulator`), with TLS
    /// the provider's token and `trustRoots`. A malformed port is an `invalidArgument` error naming the host.
    package static func rpcConfiguration(
        databaseID: DatabaseID, host: String, isSSLEnabled: Bool,
        authTokenProvider: FirestoreRPCConfiguration.AuthTokenProvider?, emulatorAuth: EmulatorAuth = .owner,
        trustRoots: TLSTrustRoots = .system, tokensForEmulator: Bool = false
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
        if isSSLEnabled || tokensForEmulator {
            return .success(
                FirestoreRPCConfiguration(
                    databaseID: databaseID, host: name, port: port, usesTLS: isSSLEnabled, trustRoots: trustRoots,
                    authTokenProvider: authTokenProvider))
        }
        return .success(.emulator(databaseID: databaseID, host: name, port: port, auth: emulatorAuth))
    }
}
