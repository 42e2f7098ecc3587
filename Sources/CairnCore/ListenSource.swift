/// Where a snapshot listener gets its data.
///
/// ```swift
/// ref.addSnapshotListener(options: SnapshotListenOptions().withSource(.cache)) { snapshot, error in ... }
/// ```
public enum ListenSource: Int, Sendable, Hashable {
    /// The server and the cache: the listener opens a watch on the server when online.
    case `default`
    /// The cache only: no watch is opened; the listener still sees local writes and data other listeners bring.
    case cache
}
