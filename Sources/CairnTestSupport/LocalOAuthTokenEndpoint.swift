import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import _CryptoExtras

/// A Google-style OAuth2 token endpoint on 127.0.0.1 for one service account, for tests and demos without the
/// network: it answers the JWT-bearer grant (RFC 7523) as `oauth2.googleapis.com/token` does, after checking the
/// JWT's RS256 signature with the public half of a key it generates at start (nothing is committed), its `iss`
/// (the account), `aud` (this endpoint's URL), `scope` and `iat`/`exp`. It writes the matching key file on request,
/// counts requests and grants, and refuses with Google's `invalid_grant` answers. Its access tokens are unsigned
/// JWTs (`sub`: the account), where Google's are opaque: the Firestore emulator refuses a bearer token that is not
/// a JWT ("invalid jwt") and accepts unsigned ones, so a client can use them against the emulator.
///
/// ```swift
/// let endpoint = try await LocalOAuthTokenEndpoint.start()
/// defer { endpoint.stop() }
/// try endpoint.writeKeyFile(to: keyURL)                       // a service account key whose token_uri is here
/// let provider = try ServiceAccountCredentialsProvider(keyFile: keyURL)
/// endpoint.requestCount                                      // POSTs received, granted or not
/// ```
package final class LocalOAuthTokenEndpoint: Sendable {
    /// The URL to POST grants to (`http://127.0.0.1:<port>/token`), the key file's `token_uri`.
    package let url: URL
    /// The service account it grants tokens for.
    package let clientEmail: String
    /// The scope a JWT must ask for.
    package let scope: String
    /// The `expires_in` of every grant, in seconds.
    package let expiresIn: Int

    private let signingKey: _RSA.Signing.PrivateKey
    private let now: @Sendable () -> Date
    private let channel: any Channel
    private let counters = Mutex(Counters())

    private struct Counters {
        var requests = 0
        var granted: [String] = []
    }

    /// Starts an endpoint on a free loopback port. `now` is its clock (tests move it together with the provider's).
    package static func start(
        clientEmail: String = "cairn-test@demo-cairn.iam.gserviceaccount.com",
        scope: String = "https://www.googleapis.com/auth/datastore", expiresIn: Int = 3600,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> LocalOAuthTokenEndpoint {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let answerer = Mutex<LocalOAuthTokenEndpoint?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        TokenRequestHandler { method, uri, body in
                            answerer.withLock { $0 }?.answer(method: method, uri: uri, body: body)
                                ?? (.serviceUnavailable, ["error": "starting"])
                        })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        let endpoint = LocalOAuthTokenEndpoint(
            url: URL(string: "http://127.0.0.1:\(port)/token")!, clientEmail: clientEmail, scope: scope,
            expiresIn: expiresIn, signingKey: key, now: now, channel: channel)
        answerer.withLock { $0 = endpoint }
        return endpoint
    }

    private init(
        url: URL, clientEmail: String, scope: String, expiresIn: Int, signingKey: _RSA.Signing.PrivateKey,
        now: @escaping @Sendable () -> Date, channel: any Channel
    ) {
        self.url = url
        self.clientEmail = clientEmail
        self.scope = scope
        self.expiresIn = expiresIn
        self.signingKey = signingKey
        self.now = now
        self.channel = channel
    }

    /// Closes the listening socket.
    package func stop() {
        channel.close(promise: nil)
    }

    /// Token requests received (granted or refused).
    package var requestCount: Int { counters.withLock { $0.requests } }
    /// The access tokens granted, in order.
    package var grantedTokens: [String] { counters.withLock { $0.granted } }

    /// A service account key file for this endpoint (`token_uri` is ``url``) with its private key, or, with
    /// `unknownKey`, with a fresh key the endpoint does not know (its JWTs are refused: "Invalid JWT Signature.").
    package func keyFileJSON(unknownKey: Bool = false, projectID: String = "demo-cairn") throws -> Data {
        let privateKey = unknownKey ? try _RSA.Signing.PrivateKey(keySize: .bits2048) : signingKey
        let key: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": "local-test-key",
            "private_key": privateKey.pkcs8PEMRepresentation, "client_email": clientEmail, "client_id": "1",
            "token_uri": url.absoluteString,
        ]
        return try JSONSerialization.data(withJSONObject: key, options: [.prettyPrinted, .sortedKeys])
    }

    /// Writes ``keyFileJSON(unknownKey:projectID:)`` to `file`, readable by the owner only (0600).
    package func writeKeyFile(to file: URL, unknownKey: Bool = false, projectID: String = "demo-cairn") throws {
        let json = try keyFileJSON(unknownKey: unknownKey, projectID: projectID)
        guard FileManager.default.createFile(atPath: file.path, contents: json, attributes: [.posixPermissions: 0o600])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }

    /// The answer to one request: a grant, or Google's error for what is wrong.
    fileprivate func answer(method: HTTPMethod, uri: String, body: String) -> (HTTPResponseStatus, [String: Any]) {
        counters.withLock { $0.requests += 1 }
        guard method == .POST, uri == url.path else {
            return (.notFound, ["error": "not_found", "error_description": "POST \(url.path) only."])
        }
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return (.badRequest, ["error": "unsupported_grant_type", "error_description": "Invalid grant_type."])
        }
        if let refusal = verify(form["assertion"] ?? "") {
            return (.badRequest, ["error": "invalid_grant", "error_description": refusal])
        }
        let issued = Int(now().timeIntervalSince1970)
        let token = [
            ["alg": "none", "typ": "JWT"],
            [
                "iss": url.absoluteString, "sub": clientEmail, "scope": scope, "iat": issued,
                "exp": issued + expiresIn, "jti": UUID().uuidString.lowercased(),
            ],
        ].map(Self.base64URLJSON).joined(separator: ".") + "."
        counters.withLock { $0.granted.append(token) }
        return (.ok, ["access_token": token, "expires_in": expiresIn, "token_type": "Bearer"])
    }

    /// Why `assertion` is refused, nil when it is a valid JWT for this endpoint.
    private func verify(_ assertion: String) -> String? {
        let segments = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerData = Self.base64URL(segments[0]),
            let claimsData = Self.base64URL(segments[1]), let signatureData = Self.base64URL(segments[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return "The assertion is not a JWT." }
        guard header["alg"] as? String == "RS256" else { return "Invalid JWT: alg must be RS256." }
        let digest = SHA256.hash(data: Data(segments[0].utf8) + Data(".".utf8) + Data(segments[1].utf8))
        guard
            signingKey.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signatureData), for: digest, padding: .insecurePKCS1v1_5)
        else { return "Invalid JWT Signature." }
        guard claims["iss"] as? String == clientEmail else { return "Invalid JWT: unknown issuer." }
        guard claims["aud"] as? String == url.absoluteString else {
            return "Invalid JWT: Failed audience check. The right audience is \(url.absoluteString)"
        }
        let scopes = (claims["scope"] as? String)?.split(separator: " ").map(String.init) ?? []
        guard scopes.contains(scope) else { return "Invalid JWT: scope \(scope) missing." }
        guard let issuedAt = claims["iat"] as? Int, let expiry = claims["exp"] as? Int else {
            return "Invalid JWT: iat and exp are required."
        }
        let current = Int(now().timeIntervalSince1970)
        guard issuedAt <= current + 60, expiry > current, expiry - issuedAt <= 3600 else {
            return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
        }
        return nil
    }

    /// `object` as JSON in base64url without padding.
    private static func base64URLJSON(_ object: [String: Any]) -> String {
        // Dictionaries of strings and integers always serialize.
        ((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func base64URL(_ segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

/// Reads one HTTP/1.1 request (at most 64 KiB of body), answers it with JSON and closes the connection.
private final class TokenRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    typealias Answer = @Sendable (HTTPMethod, String, String) -> (HTTPResponseStatus, [String: Any])

    private static let maxBodyBytes = 64 * 1024
    private let answer: Answer
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(answer: @escaping Answer) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var part):
            guard body.readableBytes + part.readableBytes <= Self.maxBodyBytes else {
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            let (status, object) = answer(head.method, head.uri, String(buffer: body))
            respond(context, version: head.version, status: status, object: object)
        }
    }

    private func respond(
        _ context: ChannelHandlerContext, version: HTTPVersion, status: HTTPResponseStatus, object: [String: Any]
    ) {
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(json.count)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: json)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
