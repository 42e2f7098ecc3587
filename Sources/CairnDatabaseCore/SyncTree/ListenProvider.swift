/// The result the server gives a listen: `ok`, or a failure status that cancels the listen.
package enum ListenStatus: Equatable, Sendable {
    case ok
    case failed(String)
}

/// What the sync tree calls to start and stop server listens (Firebase's `ListenProvider`): the connection later,
/// a scripted provider in tests. A query that loads all data arrives as the default query at its path; filtered
/// queries carry their tag.
package protocol ListenProvider: AnyObject {
    /// Starts a listen. `hash` gives the hash of the view's server cache (sent as `h`); the provider calls
    /// `onComplete` when the server answers and delivers the events it returns.
    func startListening(_ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [DatabaseEvent]) -> [DatabaseEvent]
    func stopListening(_ query: QuerySpec, tag: Int?)
}
