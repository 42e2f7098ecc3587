/// What a transport reports: the socket is open (the WebSocket handshake finished), a text frame arrived, or the
/// socket closed (exactly once, last; `reason` nil for a normal close).
enum TransportEvent: Equatable, Sendable {
    case opened
    case received(String)
    case closed(reason: String?)
}

/// One WebSocket to the database server, as the ``PersistentConnection`` uses it: text frames out, events in.
/// ``WebSocketTransport`` is the real one; tests script their own.
///
/// ```swift
/// let transport = factory(address) { event in ... }   // .opened, .received(frame)..., .closed(reason:)
/// transport.send(#"{"t":"d","d":{"r":1,"a":"s","b":{"c":{}}}}"#)
/// transport.close()
/// ```
protocol ConnectionTransport: AnyObject, Sendable {
    /// Sends one text frame; frames go out in the order of the calls. Ignored once closed.
    func send(_ frame: String)
    /// Closes the socket; the `closed` event follows (unless it came already).
    func close()
}

/// Opens a transport to an address; its events go to the closure, from any thread.
typealias TransportFactory = @Sendable (WebSocketAddress, @escaping @Sendable (TransportEvent) -> Void) -> any ConnectionTransport
