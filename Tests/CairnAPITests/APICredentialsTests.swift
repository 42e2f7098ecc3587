import CairnCore
import CairnTestSupport
import Foundation
import Synchronization
import Testing

@testable import Cairn

/// A clock the test moves; the provider and the local token endpoint read the same one.
private final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: @Sendable () -> Date { { [self] in current.withLock { $0 } } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// The built-in credentials providers, offline: the service account's OAuth exchange runs against
/// ``LocalOAuthTokenEndpoint`` (a loopback endpoint that verifies the JWT's RS256 signature with the public half of
/// a key generated at run time); the ID-token provider with its refresh hook.
@Suite("Credentials providers")
struct APICredentialsTests {
    private func serviceAccount(
        _ endpoint: LocalOAuthTokenEndpoint, clock: TestClock = TestClock(), unknownKey: Bool = false
    ) throws -> ServiceAccountCredentialsProvider {
        let key = try ServiceAccountKey(json: endpoint.keyFileJSON(unknownKey: unknownKey), source: "test key")
        return ServiceAccountCredentialsProvider(key: key, now: clock.now)
    }

    @Test("A service account's access token is fetched once and cached, also for concurrent callers")
    func fetchedOnceAndCached() async throws {
        let clock = TestClock()
        let endpoint = try await LocalOAuthTokenEndpoint.start(now: clock.now)
        defer { endpoint.stop() }
        let provider = try serviceAccount(endpoint, clock: clock)
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { try await provider.getToken(forceRefresh: false)?.token } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        let again = try await provider.getToken(forceRefresh: false)
        #expect(endpoint.requestCount == 1, "one exchange for every caller")
        #expect(endpoint.grantedTokens.count == 1)
        #expect(Set(tokens) == [endpoint.grantedTokens.first])
        #expect(again?.token == endpoint.grantedTokens.first)
        #expect(again?.user == .unauthenticated)
    }

    @Test("The access token is refreshed five minutes before it expires, not earlier; forceRefresh fetches a new one")
    func refreshedBeforeExpiry() async throws {
        let clock = TestClock()
        let endpoint = try await LocalOAuthTokenEndpoint.start(expiresIn: 3600, now: clock.now)
        defer { endpoint.stop() }
        let provider = try serviceAccount(endpoint, clock: clock)
        let first = try #require(try await provider.getToken(forceRefresh: false))
        clock.advance(by: 3600 - 5 * 60 - 1)
        #expect(try await provider.getToken(forceRefresh: false) == first, "still more than 5 minutes to live")
        #expect(endpoint.requestCount == 1)
        clock.advance(by: 2)
        let second = try #require(try await provider.getToken(forceRefresh: false))
        #expect(second != first)
        #expect(endpoint.requestCount == 2)
        let forced = try #require(try await provider.getToken(forceRefresh: true))
        #expect(forced != second)
        #expect(endpoint.grantedTokens == [first.token, second.token, forced.token])
    }

    @Test("A JWT signed with a key the endpoint does not know is refused: unauthenticated with the endpoint's reason")
    func badSignatureRefused() async throws {
        let endpoint = try await LocalOAuthTokenEndpoint.start()
        defer { endpoint.stop() }
        let provider = try serviceAccount(endpoint, unknownKey: true)
        let error = await #expect(throws: FirestoreErrorCode.self) { try await provider.getToken(forceRefresh: false) }
        #expect(error?.code == .unauthenticated)
        #expect(error?.message.contains("invalid_grant: Invalid JWT Signature.") == true, "\(String(describing: error))")
        #expect(error?.message.contains(endpoint.url.absoluteString) == true)
        #expect(endpoint.requestCount == 1 && endpoint.grantedTokens.isEmpty)
    }

    @Test("An unreachable token endpoint is unavailable, naming the endpoint")
    func unreachableEndpoint() async throws {
        let endpoint = try await LocalOAuthTokenEndpoint.start()
        let json = try endpoint.keyFileJSON()
        endpoint.stop()
        try await Task.sleep(for: .milliseconds(100))
        let provider = try ServiceAccountCredentialsProvider(keyJSON: json)
        let error = await #expect(throws: FirestoreErrorCode.self) { try await provider.getToken(forceRefresh: false) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains(endpoint.url.absoluteString) == true, "\(String(describing: error))")
    }

    @Test(
        "A malformed service account key is an invalidArgument error naming what is wrong, never showing the key",
        arguments: [
            ("not json", "is not a JSON object"),
            (#"{"type": "authorized_user", "client_email": "a@b", "private_key": "x"}"#, "not \"service_account\""),
            (#"{"type": "service_account", "private_key": "x"}"#, "has no client_email"),
            (#"{"type": "service_account", "client_email": "a@b"}"#, "has no private_key"),
            (#"{"client_email": "a@b", "private_key": "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END PRIVATE KEY-----\n"}"#,
             "not a PEM RSA private key"),
            (#"{"client_email": "a@b", "private_key": "x", "token_uri": "file:///etc/passwd"}"#, "not an http(s) URL"),
            (#"{"client_email": "a@b", "private_key": "x", "token_uri": "http://oauth2.example.com/token"}"#,
             "plain http to oauth2.example.com"),
        ])
    func malformedKey(json: String, reason: String) throws {
        let error = #expect(throws: FirestoreErrorCode.self) {
            try ServiceAccountCredentialsProvider(keyJSON: Data(json.utf8))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.message.contains("c2VjcmV0LWtleQ") == false, "the key reached the message")
    }

    @Test("A missing key file is an invalidArgument error naming the file")
    func missingKeyFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-key-\(UUID()).json")
        let error = #expect(throws: FirestoreErrorCode.self) {
            try ServiceAccountCredentialsProvider(keyFile: file)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(file.path) == true, "\(String(describing: error))")
    }

    @Test("A key file the endpoint writes (0600) works through keyFile:, and its project is read")
    func keyFileRoundTrip() async throws {
        let endpoint = try await LocalOAuthTokenEndpoint.start()
        defer { endpoint.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-key-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try endpoint.writeKeyFile(to: file, projectID: "demo-keyfile")
        #expect(try FileModes(under: file.path).entries.map(\.mode) == [0o600])
        let provider = try ServiceAccountCredentialsProvider(keyFile: file)
        #expect(provider.projectID == "demo-keyfile")
        #expect(provider.clientEmail == endpoint.clientEmail)
        #expect(try await provider.getToken(forceRefresh: false)?.token == endpoint.grantedTokens.first)
    }

    @Test("Neither the access token nor the private key appears in a log line, while the exchange is logged")
    func tokenNeverLogged() async throws {
        let endpoint = try await LocalOAuthTokenEndpoint.start()
        defer { endpoint.stop() }
        let keyJSON = try endpoint.keyFileJSON()
        let lines = try await ExclusiveTestSection.logging.run {
            let capture = LogCapture.start()
            Firestore.enableLogging(true)
            defer { Firestore.enableLogging(false) }
            let provider = try ServiceAccountCredentialsProvider(keyJSON: keyJSON)
            _ = try await provider.getToken(forceRefresh: false)
            _ = try await provider.getToken(forceRefresh: true)
            let ids = try IDTokenCredentialsProvider(token: "opaque-id-token-secret", uid: "alice") {
                "opaque-refreshed-secret"
            }
            _ = try await ids.getToken(forceRefresh: true)
            return capture.stop()
        }
        let token = try #require(endpoint.grantedTokens.last)
        let fields = try #require(try JSONSerialization.jsonObject(with: keyJSON) as? [String: String])
        let keyBody = try #require(fields["private_key"]?.split(separator: "\n").dropFirst().first)
        #expect(lines.contains { $0.label == "cairn.firestore.auth" && $0.message.contains(endpoint.clientEmail) }, "\(lines)")
        #expect(lines.contains { $0.label == "cairn.firestore.auth" && $0.message.contains("refreshed for user alice") })
        let leaked = lines.filter {
            endpoint.grantedTokens.contains(where: $0.message.contains) || $0.message.contains(token)
                || $0.message.contains(keyBody) || $0.message.contains("secret")
        }
        #expect(leaked.isEmpty, "\(leaked)")
    }

    @Test("The ID-token provider reads the uid from user_id, else sub; an unreadable token without a uid is refused")
    func idTokenUser() throws {
        let both = Self.jwt(["user_id": "alice", "sub": "other"])
        #expect(try IDTokenCredentialsProvider(token: both).user == CredentialsUser(uid: "alice"))
        #expect(try IDTokenCredentialsProvider(token: Self.jwt(["sub": "bob"])).user == CredentialsUser(uid: "bob"))
        #expect(try IDTokenCredentialsProvider(token: "opaque", uid: "carol").user == CredentialsUser(uid: "carol"))
        let error = #expect(throws: FirestoreErrorCode.self) { try IDTokenCredentialsProvider(token: "opaque") }
        #expect(error?.code == .invalidArgument)
        #expect(IDTokenCredentialsProvider().user == .unauthenticated)
    }

    @Test("The change listener hears the current user at once, then each change of uid, not a new token of the same uid")
    func idTokenChangeListener() throws {
        let provider = try IDTokenCredentialsProvider(token: Self.jwt(["user_id": "alice"]))
        let heard = Mutex<[CredentialsUser]>([])
        provider.setChangeListener { user in heard.withLock { $0.append(user) } }
        try provider.setToken(Self.jwt(["user_id": "alice", "n": 2]))
        try provider.setToken(Self.jwt(["user_id": "bob"]))
        try provider.setToken(nil)
        provider.setChangeListener(nil)
        try provider.setToken(Self.jwt(["user_id": "carol"]))
        #expect(heard.withLock { $0 } == [CredentialsUser(uid: "alice"), CredentialsUser(uid: "bob"), .unauthenticated])
    }

    @Test("The refresh hook runs once for concurrent forced refreshes and when exp is under five minutes away, not before")
    func idTokenRefreshHook() async throws {
        let clock = TestClock()
        let calls = Mutex(0)
        let expiry = Int(clock.now().timeIntervalSince1970) + 3600
        let provider = try IDTokenCredentialsProvider(
            token: Self.jwt(["user_id": "alice", "exp": expiry]), uid: nil,
            refresh: {
                let n = calls.withLock { n in
                    n += 1
                    return n
                }
                try await Task.sleep(for: .milliseconds(50))
                return Self.jwt(["user_id": "alice", "exp": expiry + 3600 * n])
            }, now: clock.now)
        clock.advance(by: 3600 - 5 * 60 - 1)
        _ = try await provider.getToken(forceRefresh: false)
        #expect(calls.withLock { $0 } == 0, "more than five minutes left: no refresh")
        clock.advance(by: 2)
        _ = try await provider.getToken(forceRefresh: false)
        #expect(calls.withLock { $0 } == 1, "under five minutes left: refreshed")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { _ = try await provider.getToken(forceRefresh: true) } }
            try await group.waitForAll()
        }
        #expect(calls.withLock { $0 } == 2, "concurrent forced refreshes share one")
    }

    @Test("A provider's change to another uid switches the instance's user: the other user's pending writes leave the views")
    func userSwitchThroughTheAPI() async throws {
        let provider = try IDTokenCredentialsProvider(token: "token-a", uid: "alice")
        let env = APITestEnvironment { $0.credentialsProvider = provider }
        let ref = env.db.collection("notes").document("n1")
        try await env.db.disableNetwork()
        ref.setData(["by": "alice"], completion: nil)
        #expect(try await ref.getDocument(source: .cache).data()?["by"] as? String == "alice")
        try provider.setToken("token-b", uid: "bob")
        var seen: [String: Any]? = ["by": "alice"]
        for _ in 0..<3000 where seen != nil {
            seen = try? await ref.getDocument(source: .cache).data()
            if seen != nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(seen == nil, "bob does not see alice's pending write")
        try provider.setToken("token-a2", uid: "alice")
        var back: String?
        for _ in 0..<3000 where back == nil {
            back = (try? await ref.getDocument(source: .cache).data())?["by"] as? String
            if back == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(back == "alice", "alice's write is back with her")
        try await env.db.terminate()
    }

    /// An unsigned JWT with `claims`.
    static func jwt(_ claims: [String: Any]) -> String {
        JWTSegments.encode(["alg": "none"]) + "." + JWTSegments.encode(claims) + "."
    }
}
