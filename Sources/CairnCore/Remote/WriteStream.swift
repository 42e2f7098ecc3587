import CairnModel

/// The write stream (Firebase's `WriteStream`): after a handshake that returns a stream token, the client sends
/// mutation batches in order and the server acknowledges them in order.
package protocol WriteStream: AnyObject {
    /// Opens the stream; ``WriteStreamDelegate/writeStreamDidOpen()`` follows once it is open.
    func start()
    /// Closes the stream without telling the delegate (after a completed handshake the real stream first sends an
    /// empty flush write).
    func stop()
    var isStarted: Bool { get }
    var isOpen: Bool { get }
    /// True once the server answered the handshake. Keeps its value after the stream fails, until the next
    /// ``start()``, so that the delegate can tell a failed handshake from a failed write.
    var handshakeComplete: Bool { get }
    /// The token of the last response, sent again on the next handshake; the RemoteStore persists it.
    var lastStreamToken: [UInt8] { get set }
    /// Sends the handshake (the first request on a new stream).
    func writeHandshake()
    /// Sends one batch's mutations; only after the handshake completed.
    func write(mutations: [Mutation])
}

/// Receives the write stream's events, on the ``AsyncQueue``.
package protocol WriteStreamDelegate: AnyObject {
    func writeStreamDidOpen()
    func writeStreamDidCompleteHandshake()
    /// The server acknowledged the oldest batch in flight.
    func writeStreamDidReceiveResponse(commitVersion: Timestamp, results: [MutationResult])
    /// The stream closed: `nil` for a clean close, otherwise the error that ended it.
    func writeStreamWasInterrupted(error: FirestoreErrorCode?)
}
