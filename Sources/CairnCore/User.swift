/// The signed-in user whose writes the client sends (Firebase's `credentials::User`); `uid` is nil when nobody is
/// signed in. Each user has their own outbox in the cache.
package struct User: Sendable, Hashable {
    package var uid: String?

    package static let unauthenticated = User(uid: nil)

    package init(uid: String?) {
        self.uid = uid
    }

    /// The name of the user's outbox in the `LocalStore` (the empty string for the unauthenticated user).
    package var localStoreID: String { uid ?? "" }
}
