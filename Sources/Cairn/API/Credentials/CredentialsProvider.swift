/// Where a ``Firestore`` instance gets its bearer tokens and who the signed-in user is (Cairn's, shaped as
/// Firebase's internal `CredentialsProvider`: Firebase takes both from Firebase Auth, which Cairn does not have).
///
/// Set one on ``FirestoreSettings/credentialsProvider``. The instance registers a change listener when it starts:
/// the provider calls it at once with the current user, then each time the user changes. A change to another uid
/// switches the instance's user as a sign-in does in Firebase: listeners show the new user's pending writes, and
/// only the new user's writes are sent (each user has their own outbox; the other's wait until that user is back).
/// Before every RPC and stream start the instance asks for a token; after the server answered `unauthenticated`
/// it asks once with `forceRefresh` and retries.
///
/// The tokens go to Cloud Firestore over TLS, and to the emulator too (which accepts unsigned mock ID tokens, see
/// ``IDTokenCredentialsProvider``). Built in: ``ServiceAccountCredentialsProvider`` (a Google service account's
/// OAuth2 access tokens) and ``IDTokenCredentialsProvider`` (a Firebase ID token with a refresh hook).
///
/// ```swift
/// let settings = db.settings
/// settings.credentialsProvider = try ServiceAccountCredentialsProvider(keyFile: URL(fileURLWithPath: "key.json"))
/// db.settings = settings
/// ```
public protocol CredentialsProvider: AnyObject, Sendable {
    /// The token for the next call, and the user it belongs to; `nil` sends no `authorization` header. Cache the
    /// token here: this is called before every RPC and stream start. `forceRefresh` is true after the server
    /// refused the last token (`unauthenticated`): fetch a new one. Throw a ``FirestoreErrorCode`` (e.g.
    /// `unauthenticated` with the reason) when no token can be had; the call fails with it.
    func getToken(forceRefresh: Bool) async throws -> AuthToken?

    /// Registers the one change listener (replacing any earlier one; `nil` removes it). The provider calls it at
    /// once with the current user, before returning, and then after each change of user, from any thread, never
    /// while holding a lock of its own. A ``Firestore`` instance registers when it starts and removes its listener
    /// when terminated, so a provider serves one instance at a time.
    func setChangeListener(_ listener: (@Sendable (CredentialsUser) -> Void)?)
}

/// A bearer token and the user it was issued for.
public struct AuthToken: Sendable, Hashable, CustomStringConvertible {
    /// The token, sent as `authorization: Bearer <token>` (an OAuth2 access token or a Firebase ID token).
    public let token: String
    /// Whose token it is.
    public let user: CredentialsUser

    public init(token: String, user: CredentialsUser) {
        self.token = token
        self.user = user
    }

    /// Never shows the token.
    public var description: String { "AuthToken(user: \(user), token: <\(token.utf8.count) bytes>)" }
}

/// The signed-in user of a ``CredentialsProvider`` (Firebase's `credentials::User`): a Firebase uid, or nobody.
/// Each user has their own outbox of pending writes in the cache.
public struct CredentialsUser: Sendable, Hashable, CustomStringConvertible {
    /// The uid, nil when unauthenticated.
    public let uid: String?

    public init(uid: String?) {
        self.uid = uid
    }

    /// Nobody signed in (also the user of a service account, which is not a Firebase user).
    public static let unauthenticated = CredentialsUser(uid: nil)

    public var isAuthenticated: Bool { uid != nil }

    public var description: String { uid.map { "user \($0)" } ?? "unauthenticated" }
}
