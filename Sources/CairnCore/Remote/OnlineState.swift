/// Whether the client believes it can reach the backend (Firebase's `OnlineState`); views raise `fromCache` when
/// the client is offline.
package enum OnlineState: Sendable, Hashable {
    /// Not known yet: the client has not tried, or is still trying, to connect. Listeners get no cache-only
    /// snapshot while the state is unknown, in the hope that the server answers quickly.
    case unknown
    /// The watch stream is connected and delivered a message.
    case online
    /// The watch stream failed to connect, or did not answer within 10 s, or the network is disabled.
    case offline
}
