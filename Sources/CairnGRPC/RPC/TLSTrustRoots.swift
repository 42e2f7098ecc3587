import CairnCore
import Foundation
import GRPCNIOTransportHTTP2

/// The certificate authorities a TLS connection to Cloud Firestore trusts (Cairn's addition to
/// `FirestoreSettings`; Firebase always uses the platform's roots).
///
/// `.system` (the default) is the operating system's trust store (Debian: `/etc/ssl/certs`). A private CA, for a
/// TLS-terminating proxy or a test server, is given as PEM: a file or bytes holding one or more
/// `-----BEGIN CERTIFICATE-----` blocks. Only these roots are then trusted, not the system's as well.
///
/// ```swift
/// settings.host = "firestore-proxy.internal:8443"
/// settings.isSSLEnabled = true
/// settings.tlsTrustRoots = .pemFile("/etc/my-app/proxy-ca.pem")
/// ```
public enum TLSTrustRoots: Sendable, Hashable, CustomStringConvertible {
    /// The operating system's trust store.
    case system
    /// The certificates of a PEM file, read when a client connects.
    case pemFile(String)
    /// PEM-encoded certificates.
    case pem(Data)

    public var description: String {
        switch self {
        case .system: "system"
        case .pemFile(let path): "PEM file \(path)"
        case .pem(let data): "PEM (\(data.count) bytes)"
        }
    }

    /// The transport's TLS settings for these roots: full verification (chain and host name) in every case. A
    /// file that cannot be read, or PEM without a certificate, is an `invalidArgument` error saying so.
    func transportSecurity() throws(FirestoreErrorCode) -> HTTP2ClientTransport.Posix.TransportSecurity {
        let pem: Data
        switch self {
        case .system:
            return .tls
        case .pemFile(let path):
            do {
                pem = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw FirestoreErrorCode(
                    .invalidArgument,
                    "The TLS trust roots file \(path) cannot be read (\(error.localizedDescription)); "
                        + "tlsTrustRoots needs a readable PEM file of CA certificates.")
            }
        case .pem(let data):
            pem = data
        }
        guard pem.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw FirestoreErrorCode(
                .invalidArgument,
                "The TLS trust roots (\(self)) hold no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" line).")
        }
        let bytes = [UInt8](pem)
        return .tls { $0.trustRoots = .certificates([.bytes(bytes, format: .pem)]) }
    }
}
