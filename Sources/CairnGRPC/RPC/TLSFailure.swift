import GRPCCore
import NIOSSL

/// What went wrong in a TLS handshake, found in the cause chain of a failed call: grpc-swift reports a handshake
/// failure as `UNAVAILABLE` ("Channel is in a transient failure state …") whose causes end in NIOSSL's error. The
/// call's error then names the host and the certificate problem instead of the channel state.
///
/// ```swift
/// TLSFailure.problem(in: error, host: "127.0.0.1", trustRoots: .system)
/// // "certificate verify failed (CERTIFICATE_VERIFY_FAILED): the server's certificate does not chain to …"
/// ```
enum TLSFailure {
    /// How deep a cause chain is followed (grpc-swift nests two or three levels).
    private static let maximumDepth = 8

    /// The TLS problem in `error` or its causes, nil when none of them is a TLS error.
    static func problem(in error: any Error, host: String, trustRoots: TLSTrustRoots) -> String? {
        var current: (any Error)? = error
        for _ in 0..<maximumDepth {
            switch current {
            case let extra as NIOSSLExtraError where extra == .failedToValidateHostname:
                return "the server's certificate is not valid for the host name \(host) (certificate name mismatch)"
            case let extra as NIOSSLExtraError:
                return "\(extra)"
            case let ssl as NIOSSLError:
                return describe(ssl, trustRoots: trustRoots)
            case let rpc as RPCError:
                current = rpc.cause
            case let runtime as RuntimeError:
                current = runtime.cause
            default:
                return nil
            }
        }
        return nil
    }

    private static func describe(_ error: NIOSSLError, trustRoots: TLSTrustRoots) -> String {
        guard case .handshakeFailed(let boringSSL) = error else { return "\(error)" }
        let reasons = reasonCodes(boringSSL)
        if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
            return "certificate verify failed (CERTIFICATE_VERIFY_FAILED): the server's certificate does not chain "
                + "to a trusted root (unknown CA; tlsTrustRoots: \(trustRoots)), or a certificate in the chain has "
                + "expired"
        }
        return reasons.isEmpty ? "\(boringSSL)" : reasons.joined(separator: ", ")
    }

    /// BoringSSL's reason names (`CERTIFICATE_VERIFY_FAILED`, `WRONG_VERSION_NUMBER`, …) from an error stack whose
    /// entries read `error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at file:line`.
    private static func reasonCodes(_ error: BoringSSLError) -> [String] {
        let stack: NIOBoringSSLErrorStack
        switch error {
        case .sslError(let errors), .unknownError(let errors), .invalidSNIName(let errors),
            .failedToSetALPN(let errors):
            stack = errors
        default:
            return ["\(error)"]
        }
        return stack.compactMap { entry in
            let text = "\(entry)"
            guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
            return String(text[marker.upperBound...].prefix { $0 != " " })
        }
    }
}
