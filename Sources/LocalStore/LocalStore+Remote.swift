/// The cache's ``RemoteEvent`` under a name reachable from modules that define their own `RemoteEvent` (the
/// module and the class are both called `LocalStore`, so `LocalStore.RemoteEvent` must be a member of the class).
public typealias LocalStoreRemoteEvent = RemoteEvent

extension LocalStore {
    /// The cache's remote event, as `LocalStore.RemoteEvent` (see ``LocalStoreRemoteEvent``).
    public typealias RemoteEvent = LocalStoreRemoteEvent
}
