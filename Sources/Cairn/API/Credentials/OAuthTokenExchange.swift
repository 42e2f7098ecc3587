import CairnCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One OAuth2 JWT-bearer grant (RFC 7523) at a token endpoint: POST `grant_type` and `assertion` as a form, read
/// `access_token` and `expires_in` from the JSON answer. Refusals and failures are ``FirestoreErrorCode``s naming
/// the endpoint and the reason the endpoint gave; the assertion and the token appear in none of them.
///
/// ```swift
/// let granted = try await OAuthTokenExchange(endpoint: key.tokenURI).exchange(assertion: jwt)
/// // granted.accessToken, granted.expiresIn (seconds)
/// ```
struct OAuthTokenExchange: Sendable {
    /// What the endpoint granted.
    struct Grant: Sendable {
        var accessToken: String
        var expiresIn: TimeInterval
    }

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// How long one exchange may take before it fails with `unavailable`.
    static let timeout: TimeInterval = 30

    let endpoint: URL

    /// Exchanges `assertion` for an access token. A refusal (HTTP 4xx) is `unauthenticated` with the endpoint's
    /// `error` and `error_description`; no answer or a server error is `unavailable`; an answer without an
    /// `access_token` is `unauthenticated`.
    func exchange(assertion: String) async throws(FirestoreErrorCode) -> Grant {
        var request = URLRequest(url: endpoint, timeoutInterval: Self.timeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            "grant_type=\(Self.formEncoded(Self.grantType))&assertion=\(Self.formEncoded(assertion))".utf8)
        let (status, body) = try await send(request)
        let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        guard (200..<300).contains(status) else {
            let reason = [fields?["error"] as? String, fields?["error_description"] as? String]
                .compactMap { $0 }.joined(separator: ": ")
            throw FirestoreErrorCode(
                (400..<500).contains(status) ? .unauthenticated : .unavailable,
                "The token endpoint \(endpoint.absoluteString) refused the service account's JWT: HTTP \(status)"
                    + (reason.isEmpty ? "." : " \(reason)."))
        }
        guard let token = fields?["access_token"] as? String, !token.isEmpty else {
            throw FirestoreErrorCode(
                .unauthenticated,
                "The token endpoint \(endpoint.absoluteString) answered HTTP \(status) without an access_token.")
        }
        let expiresIn = JWTSegments.number(fields?["expires_in"]) ?? 3600
        guard expiresIn > 0, expiresIn <= 86_400 * 366 else {
            throw FirestoreErrorCode(
                .unauthenticated,
                "The token endpoint \(endpoint.absoluteString) answered expires_in \(expiresIn), outside 1 s – 1 year.")
        }
        return Grant(accessToken: token, expiresIn: expiresIn)
    }

    /// Sends `request` on an ephemeral session; the status and the body, or `unavailable` naming the endpoint.
    private func send(_ request: URLRequest) async throws(FirestoreErrorCode) -> (Int, Data) {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let result: Result<(Int, Data), FirestoreErrorCode> = await withCheckedContinuation { continuation in
            session.dataTask(with: request) { [endpoint] data, response, error in
                if let status = (response as? HTTPURLResponse)?.statusCode {
                    continuation.resume(returning: .success((status, data ?? Data())))
                } else {
                    continuation.resume(
                        returning: .failure(
                            FirestoreErrorCode(
                                .unavailable,
                                "The token endpoint \(endpoint.absoluteString) could not be reached: "
                                    + "\(error.map { "\($0.localizedDescription)" } ?? "no answer")")))
                }
            }.resume()
        }
        return try result.get()
    }

    /// `value` as an `application/x-www-form-urlencoded` value.
    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
