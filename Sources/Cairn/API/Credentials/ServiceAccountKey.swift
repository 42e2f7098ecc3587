import CairnCore
import Crypto
import Foundation
import _CryptoExtras

/// A Google service account's JSON key file (as the Google Cloud console downloads it) and the RS256-signed JWT
/// that asks its token endpoint for an OAuth2 access token (RFC 7523, Google's "OAuth 2.0 for server to server
/// applications").
///
/// ```swift
/// let key = try ServiceAccountKey(json: Data(contentsOf: url), source: url.path)
/// let assertion = try key.assertion(scope: ServiceAccountKey.datastoreScope, now: Date())
/// ```
struct ServiceAccountKey: Sendable {
    /// The scope Cloud Firestore's API accepts.
    static let datastoreScope = "https://www.googleapis.com/auth/datastore"
    /// Google's token endpoint, for a key file without `token_uri`.
    static let defaultTokenURI = "https://oauth2.googleapis.com/token"
    /// The lifetime a JWT asks for; Google accepts at most an hour.
    static let assertionLifetime: TimeInterval = 3600

    let clientEmail: String
    let tokenURI: URL
    let projectID: String?
    let privateKeyID: String?
    private let privateKey: _RSA.Signing.PrivateKey

    /// Reads a key file's JSON; `source` names the file in errors. A file that is not a service account key is an
    /// `invalidArgument` error naming the field at fault (never showing the key).
    init(json: Data, source: String) throws(FirestoreErrorCode) {
        func invalid(_ reason: String) -> FirestoreErrorCode {
            FirestoreErrorCode(
                .invalidArgument,
                "The service account key \(source) \(reason). Download a JSON key for the service account from the "
                    + "Google Cloud console (IAM → Service accounts → Keys).")
        }
        guard let object = try? JSONSerialization.jsonObject(with: json), let fields = object as? [String: Any] else {
            throw invalid("is not a JSON object")
        }
        if let type = fields["type"], type as? String != "service_account" {
            throw invalid("has type \"\(type)\", not \"service_account\"")
        }
        guard let email = fields["client_email"] as? String, !email.isEmpty else {
            throw invalid("has no client_email")
        }
        guard let pem = fields["private_key"] as? String, !pem.isEmpty else {
            throw invalid("has no private_key")
        }
        let uri = fields["token_uri"] as? String ?? Self.defaultTokenURI
        guard let tokenURI = URL(string: uri), ["https", "http"].contains(tokenURI.scheme ?? ""),
            let host = tokenURI.host
        else {
            throw invalid("has a token_uri that is not an http(s) URL: \(uri)")
        }
        // The signed JWT is a bearer credential for an hour: plain HTTP only to this machine (a local endpoint).
        guard tokenURI.scheme == "https" || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else {
            throw invalid("has a token_uri over plain http to \(host); only https, or http to a loopback address, is allowed")
        }
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw invalid("has a private_key that is not a PEM RSA private key of at least 2048 bits (\(error))")
        }
        clientEmail = email
        self.tokenURI = tokenURI
        projectID = fields["project_id"] as? String
        privateKeyID = fields["private_key_id"] as? String
    }

    /// A JWT for `scope`, issued by the service account for its token endpoint at `now`, signed with RS256
    /// (RSASSA-PKCS1-v1_5 with SHA-256).
    func assertion(scope: String, now: Date) throws(FirestoreErrorCode) -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        var header: [String: Any] = ["alg": "RS256", "typ": "JWT"]
        if let privateKeyID { header["kid"] = privateKeyID }
        let claims: [String: Any] = [
            "iss": clientEmail, "scope": scope, "aud": tokenURI.absoluteString, "iat": issuedAt,
            "exp": issuedAt + Int(Self.assertionLifetime),
        ]
        let signingInput = JWTSegments.encode(header) + "." + JWTSegments.encode(claims)
        do {
            let signature = try privateKey.signature(
                for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
            return signingInput + "." + JWTSegments.base64URL(signature.rawRepresentation)
        } catch {
            throw FirestoreErrorCode(
                .unauthenticated, "Signing the JWT for the service account \(clientEmail) failed: \(error).")
        }
    }
}
