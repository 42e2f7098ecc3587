import CairnCore
import Synchronization

/// A ``Firestore`` instance's registration with its ``CredentialsProvider``: the provider's change listener, tied
/// to the instance's client. The provider reports the first user while the subscription is made (the client
/// starts as that user); later changes to another user switch the client's user (`FirestoreClient.changeUser`,
/// Firebase's credential change). A change reported while the client starts is handed over when it is attached.
///
/// ```swift
/// let subscription = CredentialsSubscription(provider: provider)
/// let client = try FirestoreClient(datastore: datastore, persistence: .memory, user: subscription.coreUser)
/// subscription.attach(client, startedAs: subscription.coreUser)
/// subscription.cancel()   // on terminate
/// ```
final class CredentialsSubscription: Sendable {
    private struct State {
        /// The provider's latest user.
        var user = CredentialsUser.unauthenticated
        /// The client, once attached, and the user it was last switched to.
        var client: FirestoreClient?
        var clientUser: CredentialsUser?
    }

    private let provider: any CredentialsProvider
    private let state = Mutex(State())

    /// Registers the change listener; the provider reports its current user before this returns.
    init(provider: any CredentialsProvider) {
        self.provider = provider
        provider.setChangeListener { [weak self] user in self?.userChanged(user) }
    }

    /// The provider's latest user, as the core's ``User``.
    var coreUser: User { User(uid: state.withLock { $0.user.uid }) }

    /// From now on changes reach `client`, which was started as `user`; a change that arrived meanwhile is
    /// applied at once.
    func attach(_ client: FirestoreClient, startedAs user: User) {
        state.withLock { state in
            state.client = client
            state.clientUser = CredentialsUser(uid: user.uid)
            if state.user != state.clientUser { switchClient(&state) }
        }
    }

    /// Removes the listener; later changes reach no client.
    func cancel() {
        provider.setChangeListener(nil)
        state.withLock { $0.client = nil }
    }

    private func userChanged(_ user: CredentialsUser) {
        state.withLock { state in
            state.user = user
            if state.client != nil && state.clientUser != user { switchClient(&state) }
        }
    }

    /// Switches the client to the latest user (`changeUser` only enqueues on the client's queue).
    private func switchClient(_ state: inout State) {
        state.clientUser = state.user
        state.client?.changeUser(User(uid: state.user.uid))
    }
}
