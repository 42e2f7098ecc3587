import CairnCore
import CairnLogging
import Foundation
import Synchronization

/// OAuth2 access tokens for a Google service account, from its JSON key file (Cairn's; Firebase's Apple SDK has
/// no server credentials): a JWT signed with the key (RS256) is exchanged at the key's `token_uri` for an access
/// token with the Cloud Datastore scope, which is cached and refreshed five minutes before it expires. Concurrent
/// refreshes are one exchange; after the server refused a token (`forceRefresh`) a new one is fetched.
///
/// A service account is not a Firebase user: the user is always ``CredentialsUser/unauthenticated`` (security
/// rules do not apply to it; IAM does), so its writes share one outbox.
///
/// ```swift
/// let settings = db.settings
/// settings.credentialsProvider = try ServiceAccountCredentialsProvider(
///     keyFile: URL(fileURLWithPath: "/etc/myapp/service-account.json"))
/// db.settings = settings
/// ```
///
/// A key file that is not a service account key is an `invalidArgument` error; a refused JWT (wrong key, clock
/// skew) is `unauthenticated` with the endpoint's reason; an unreachable endpoint is `unavailable`. Neither the key
/// nor a token reaches an error message or a log line.
public final class ServiceAccountCredentialsProvider: CredentialsProvider {
    /// How long before its expiry a cached token is replaced.
    public static let refreshMargin: TimeInterval = 5 * 60

    /// The service account (`client_email`).
    public var clientEmail: String { key.clientEmail }
    /// The key file's `project_id`, nil when it has none.
    public var projectID: String? { key.projectID }

    private struct Cached: Sendable {
        var token: String
        var expiry: Date
    }

    private let key: ServiceAccountKey
    private let scope: String
    private let now: @Sendable () -> Date
    private let cached = Mutex<Cached?>(nil)
    private let gate = TokenRefreshGate<Cached>()

    /// Reads the key file at `keyFile`. An unreadable file or one that is not a service account key is an
    /// `invalidArgument` error naming the file and the reason.
    public convenience init(keyFile: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: keyFile)
        } catch {
            throw FirestoreErrorCode(
                .invalidArgument, "Cannot read the service account key file \(keyFile.path): \(error.localizedDescription)")
        }
        try self.init(key: ServiceAccountKey(json: data, source: "file \(keyFile.path)"))
    }

    /// Reads a key file's contents.
    public convenience init(keyJSON: Data) throws {
        try self.init(key: ServiceAccountKey(json: keyJSON, source: "JSON"))
    }

    /// A provider for `key`, asking for `scope`, reading the time from `now` (tests move it).
    init(
        key: ServiceAccountKey, scope: String = ServiceAccountKey.datastoreScope,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.scope = scope
        self.now = now
    }

    /// The cached access token while it has more than ``refreshMargin`` to live, else a new one.
    public func getToken(forceRefresh: Bool) async throws -> AuthToken? {
        if !forceRefresh, let cached = cached.withLock({ $0 }), now() < cached.expiry - Self.refreshMargin {
            return AuthToken(token: cached.token, user: .unauthenticated)
        }
        let fresh = try await gate.run { [self] in try await fetch() }
        return AuthToken(token: fresh.token, user: .unauthenticated)
    }

    /// The user never changes: `listener` hears ``CredentialsUser/unauthenticated`` once.
    public func setChangeListener(_ listener: (@Sendable (CredentialsUser) -> Void)?) {
        listener?(.unauthenticated)
    }

    /// One exchange at the token endpoint; the grant becomes the cached token.
    private func fetch() async throws(FirestoreErrorCode) -> Cached {
        let issued = now()
        let assertion = try key.assertion(scope: scope, now: issued)
        let grant = try await OAuthTokenExchange(endpoint: key.tokenURI).exchange(assertion: assertion)
        let fresh = Cached(token: grant.accessToken, expiry: issued + grant.expiresIn)
        cached.withLock { $0 = fresh }
        CairnLogger.firestoreAuth.debug(
            "access token for service account \(key.clientEmail) from \(key.tokenURI.absoluteString), valid "
                + "\(Int(grant.expiresIn)) s")
        return fresh
    }
}
