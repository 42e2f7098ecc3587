/// The signed-in user whose writes the client sends (Firebase's `credentials::User`); `uid` is nil when nobody is
/// signed in. Each user has their own outbox in the cache.
struct User: Sendable, Hashable {
    var uid: String?

    static let unauthenticated = User(uid: nil)

    /// The name of the user's outbox in the `LocalStore` (the empty string for the unauthenticated user).
    var localStoreID: String { uid ?? "" }
}
