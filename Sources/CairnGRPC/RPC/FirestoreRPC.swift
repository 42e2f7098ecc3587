import CairnCore
import CairnModel
import CairnLogging
import GRPCCore
import GRPCNIOTransportHTTP2
import CairnLocalStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A Firestore v1 client over grpc-swift-2 and the NIO HTTP/2 transport, speaking CairnModel types.
///
/// One HTTP/2 connection carries every call. Each call sends `authorization: Bearer <token>` (when the
/// configuration's provider returns one), `google-cloud-resource-prefix: projects/{p}/databases/{d}` and
/// `x-goog-request-params: database=…` (the routing header). gRPC failures arrive as ``FirestoreErrorCode`` with
/// the same code (NOT_FOUND → `.notFound`, …).
///
/// ```swift
/// let rpc = try FirestoreRPC(configuration: .emulator(databaseID: database, host: "127.0.0.1", port: 8080))
/// defer { rpc.shutdown() }
/// let ack = try await rpc.commit([.set(key, value: ObjectValue(["n": .integer(1)]))])
/// let documents = try await rpc.lookup([key])
/// let listen = rpc.makeListenStream()       // Listen: see ``ListenStream``
/// ```
package final class FirestoreRPC: Sendable {
    package let serializer: FirestoreSerializer
    let configuration: FirestoreRPCConfiguration
    let stub: Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>
    private let client: GRPCClient<HTTP2ClientTransport.Posix>
    /// Set when the server refused a token (`unauthenticated`): the next ``metadata()`` asks the provider for a
    /// fresh one (Firebase's `InvalidateToken`).
    private let tokenInvalidated = Mutex(false)

    /// Connects lazily: the connection is made by the first call and re-made after failures.
    package init(configuration: FirestoreRPCConfiguration) throws(FirestoreErrorCode) {
        self.configuration = configuration
        self.serializer = FirestoreSerializer(databaseID: configuration.databaseID)
        let security = configuration.usesTLS ? try configuration.trustRoots.transportSecurity() : .plaintext
        let transport: HTTP2ClientTransport.Posix
        do {
            transport = try HTTP2ClientTransport.Posix(
                target: Self.target(host: configuration.host, port: configuration.port), transportSecurity: security)
        } catch {
            throw FirestoreErrorCode(
                .invalidArgument,
                "Cannot set up a connection to \(configuration.host):\(configuration.port): \(error). "
                    + (configuration.usesTLS
                        ? "Check the host name, the port and the TLS trust roots (\(configuration.trustRoots))."
                        : "Check the host name and port."))
        }
        CairnLogger.firestoreGRPC.debug(
            "connecting to \(configuration.host):\(configuration.port) "
                + (configuration.usesTLS ? "(TLS, trust roots: \(configuration.trustRoots))" : "(plaintext)"))
        let client = GRPCClient(transport: transport)
        self.client = client
        self.stub = Google_Firestore_V1_Firestore.Client(wrapping: client)
        // Runs until shutdown(); a failure surfaces as UNAVAILABLE on the calls that need the connection.
        Task { try? await client.runConnections() }
    }

    /// The transport's target for `host`: an IP literal as an address (TLS then sends no SNI, which may not carry
    /// an IP address, and verifies the certificate against the address), any other name through DNS (and as SNI).
    static func target(host: String, port: Int) -> any ResolvableTarget {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            let address: ResolvableTargets.IPv4 = .ipv4(host: host, port: port)
            return address
        }
        if inet_pton(AF_INET6, host, &v6) == 1 {
            let address: ResolvableTargets.IPv6 = .ipv6(host: host, port: port)
            return address
        }
        let name: ResolvableTargets.DNS = .dns(host: host, port: port)
        return name
    }

    /// Closes the connection once running calls finish; later calls fail with `.unavailable`.
    package func shutdown() {
        client.beginGracefulShutdown()
    }

    /// `projects/{p}/databases/{d}`.
    package var databaseName: String { serializer.databaseName }

    /// The metadata of every call: the bearer token, the resource prefix and the routing header. The provider
    /// is asked to refresh the token when `forceRefresh` says so (a retry after a refusal) or the server refused
    /// the last one.
    func metadata(forceRefresh forced: Bool = false) async throws(FirestoreErrorCode) -> Metadata {
        var metadata: Metadata = [:]
        if let provider = configuration.authTokenProvider {
            let invalidated = tokenInvalidated.withLock { invalidated in
                defer { invalidated = false }
                return invalidated
            }
            let forceRefresh = forced || invalidated
            let token: String?
            do {
                token = try await provider(forceRefresh)
            } catch let error as FirestoreErrorCode {
                throw error
            } catch {
                throw FirestoreErrorCode(.unauthenticated, "The auth token provider failed: \(error).")
            }
            if let token { metadata.addString("Bearer \(token)", forKey: "authorization") }
        }
        metadata.addString(databaseName, forKey: "google-cloud-resource-prefix")
        metadata.addString("database=\(Self.routingValue(databaseName))", forKey: "x-goog-request-params")
        return metadata
    }

    /// Makes the next call ask the provider for a fresh token: the server refused the last one.
    func invalidateToken() {
        CairnLogger.firestoreGRPC.debug("the server refused the auth token (unauthenticated); the next call fetches a new one")
        tokenInvalidated.withLock { $0 = true }
    }

    /// The Firestore error for anything a call threw; an `unauthenticated` one invalidates the token, so that the
    /// stream's next start (or the call's retry) sends a fresh one.
    func failure(_ error: any Error) -> FirestoreErrorCode {
        let mapped = firestoreError(error)
        if mapped.code == .unauthenticated && configuration.authTokenProvider != nil { invalidateToken() }
        return mapped
    }

    /// A routing-header value: percent-encoded except unreserved characters and `/`, as the Google clients send it.
    static func routingValue(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            let scalar = Unicode.Scalar(byte)
            if ("0"..."9").contains(scalar) || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || "-._~/".unicodeScalars.contains(scalar)
            {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    /// The Firestore error for anything a call threw. A failed TLS handshake is `unavailable` naming the host
    /// and the certificate problem (see ``TLSFailure``).
    func firestoreError(_ error: any Error) -> FirestoreErrorCode {
        switch error {
        case let error as FirestoreErrorCode:
            return error
        case let error as RPCError:
            if configuration.usesTLS,
                let problem = TLSFailure.problem(
                    in: error, host: configuration.host, trustRoots: configuration.trustRoots)
            {
                return FirestoreErrorCode(
                    .unavailable, "TLS handshake with \(configuration.host):\(configuration.port) failed: \(problem).")
            }
            let code = FirestoreErrorCode.Code(rawValue: error.code.rawValue) ?? .unknown
            return FirestoreErrorCode(
                code, error.message.isEmpty ? "The Firestore call failed (\(error.code))." : error.message)
        case is CancellationError:
            return FirestoreErrorCode(.cancelled, "The Firestore call was cancelled.")
        default:
            return FirestoreErrorCode(.unknown, "The Firestore call failed: \(error).")
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
