import CairnCore
import CairnLogging
import Foundation
import Synchronization

/// A Firebase ID token (or any bearer token) that the app obtains itself, with an optional refresh hook (Cairn's;
/// Firebase's Apple SDK gets ID tokens from Firebase Auth, which Cairn does not have). The user is the token's
/// uid: given, or read without verification from the JWT's `user_id` (else `sub`) claim; the server verifies the
/// token.
///
/// The hook is called when a token must be replaced: the server refused it (`unauthenticated`), or its `exp`
/// claim is less than five minutes away. Concurrent calls share one refresh. A token from the hook (or from
/// ``setToken(_:uid:)``, a sign-in, sign-out or switch of account) that belongs to another uid changes the user:
/// the ``Firestore`` instance switches to that user's outbox.
///
/// ```swift
/// let credentials = try IDTokenCredentialsProvider(token: idToken) {
///     try await myAuthServer.freshIDToken()          // called before the token expires
/// }
/// settings.credentialsProvider = credentials
/// ...
/// try credentials.setToken(otherUsersIDToken)         // the instance now sends that user's writes
/// ```
///
/// Against the emulator, unsigned mock ID tokens (`alg: none`) work as Firebase's `mockUserToken` does.
public final class IDTokenCredentialsProvider: CredentialsProvider {
    /// Returns a new token for the signed-in user (or another user's, which switches the user).
    public typealias RefreshHook = @Sendable () async throws -> String

    /// How long before the `exp` claim a token is refreshed (when there is a hook).
    public static let refreshMargin: TimeInterval = 5 * 60

    private struct Current: Sendable {
        var token: AuthToken?
        var expiry: Date?
        var listener: (@Sendable (CredentialsUser) -> Void)?
    }

    private let refresh: RefreshHook?
    private let now: @Sendable () -> Date
    private let current = Mutex(Current())
    private let gate = TokenRefreshGate<AuthToken>()

    /// Signed in with `token`; `uid` as given, else read from the token. A token whose uid cannot be read
    /// (not a JWT with `user_id` or `sub`) without a `uid` is an `invalidArgument` error.
    public convenience init(token: String, uid: String? = nil, refresh: RefreshHook? = nil) throws {
        try self.init(token: token, uid: uid, refresh: refresh, now: { Date() })
    }

    /// Signed out: no token and the unauthenticated user, until ``setToken(_:uid:)``.
    public convenience init() {
        self.init(refresh: nil, now: { Date() })
    }

    /// As ``init(token:uid:refresh:)``, reading the time from `now` (tests move it).
    convenience init(
        token: String, uid: String?, refresh: RefreshHook?, now: @escaping @Sendable () -> Date
    ) throws(FirestoreErrorCode) {
        self.init(refresh: refresh, now: now)
        try setToken(token, uid: uid)
    }

    private init(refresh: RefreshHook?, now: @escaping @Sendable () -> Date) {
        self.refresh = refresh
        self.now = now
    }

    /// The user of the current token.
    public var user: CredentialsUser { current.withLock { $0.token?.user ?? .unauthenticated } }

    /// Replaces the token (`nil`: signed out); `uid` as given, else read from the token. When the uid differs
    /// from the current one, the change listener hears of the new user.
    public func setToken(_ token: String?, uid: String? = nil) throws(FirestoreErrorCode) {
        if let token {
            install(try Self.authToken(token, uid: uid))
        } else {
            install(nil)
        }
    }

    /// The current token, or a refreshed one when it was refused (`forceRefresh`) or expires within
    /// ``refreshMargin`` and there is a refresh hook; nil while signed out.
    public func getToken(forceRefresh: Bool) async throws -> AuthToken? {
        let (token, expiry) = current.withLock { ($0.token, $0.expiry) }
        guard let refresh, token != nil else { return token }
        let expiring = expiry.map { now() >= $0 - Self.refreshMargin } ?? false
        guard forceRefresh || expiring else { return token }
        return try await gate.run { [self] in
            let token = try await refresh()
            // A token whose uid cannot be read stays with the current user.
            let fresh = try Self.authToken(token, uid: Self.uid(of: token) == nil ? user.uid : nil)
            install(fresh)
            CairnLogger.firestoreAuth.debug("ID token refreshed for \(fresh.user)")
            return fresh
        }
    }

    /// Registers `listener` and calls it with the current user.
    public func setChangeListener(_ listener: (@Sendable (CredentialsUser) -> Void)?) {
        let user = current.withLock { current in
            current.listener = listener
            return current.token?.user ?? .unauthenticated
        }
        listener?(user)
    }

    /// Makes `token` current; tells the listener (outside the lock) when the user changed.
    private func install(_ token: AuthToken?) {
        let expiry = token.flatMap { JWTSegments.number(JWTSegments.claims(of: $0.token)?["exp"]) }
            .map { Date(timeIntervalSince1970: $0) }
        let changed = current.withLock { current -> (@Sendable (CredentialsUser) -> Void)? in
            let before = current.token?.user ?? .unauthenticated
            current.token = token
            current.expiry = expiry
            return before != (token?.user ?? .unauthenticated) ? current.listener : nil
        }
        if let changed {
            let user = token?.user ?? .unauthenticated
            CairnLogger.firestoreAuth.debug("the user changed to \(user)")
            changed(user)
        }
    }

    /// `token` with its user: `uid`, else the JWT's `user_id` or `sub` claim.
    private static func authToken(_ token: String, uid: String?) throws(FirestoreErrorCode) -> AuthToken {
        if let uid { return AuthToken(token: token, user: CredentialsUser(uid: uid)) }
        guard let read = Self.uid(of: token) else {
            throw FirestoreErrorCode(
                .invalidArgument,
                "The ID token is not a JWT with a user_id or sub claim, so its user is unknown; pass the uid "
                    + "with the token (IDTokenCredentialsProvider(token:uid:) or setToken(_:uid:)).")
        }
        return AuthToken(token: token, user: CredentialsUser(uid: read))
    }

    /// The JWT's `user_id` claim, else its `sub`; nil when `token` is not a JWT with either.
    private static func uid(of token: String) -> String? {
        let claims = JWTSegments.claims(of: token)
        guard let uid = (claims?["user_id"] ?? claims?["sub"]) as? String, !uid.isEmpty else { return nil }
        return uid
    }
}
