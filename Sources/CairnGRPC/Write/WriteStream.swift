import CairnCore
import CairnModel
import Foundation
import GRPCCore
import Synchronization

/// The Write stream: a handshake that returns a stream token, then one atomic batch per request, acknowledged in
/// order (the mobile SDKs' write pipeline).
///
/// ``start()`` opens the call (`.opened`); ``writeHandshake()`` sends the first request (the database only);
/// its answer is `.handshakeComplete(streamToken:)`. ``write(_:)`` then sends a batch with the last stream token
/// received; each answer is `.response(streamToken:ack:)` for the oldest batch in flight, with one result per
/// mutation. ``close()`` sends the empty final write with the token (after a handshake) and half-closes. The server
/// rejects a batch by ending the stream with a status: `.closed(error)` then applies to the oldest batch in flight.
///
/// ```swift
/// let stream = rpc.makeWriteStream()
/// stream.start()
/// stream.writeHandshake()
/// for await event in stream.events {
///     switch event {
///     case .handshakeComplete: try stream.write([.set(key, value: value)])
///     case .response(_, let ack): print(ack.commitVersion)
///     default: break
///     }
/// }
/// ```
package final class WriteStream: Sendable {
    package enum Event: Sendable {
        case opened
        case handshakeComplete(streamToken: [UInt8])
        case response(streamToken: [UInt8], ack: FirestoreRPC.CommitAck)
        case closed(FirestoreErrorCode?)
    }

    private struct State {
        var call: Task<Void, Never>?
        var handshakeComplete = false
        var lastStreamToken: [UInt8] = []
        /// The number of mutations of each batch sent and not yet acknowledged, oldest first.
        var batchesInFlight: [Int] = []
    }

    /// Everything the stream reports, in order; finishes after `.closed`.
    package let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let requests: AsyncStream<Google_Firestore_V1_WriteRequest>
    private let requestSink: AsyncStream<Google_Firestore_V1_WriteRequest>.Continuation
    private let rpc: FirestoreRPC
    private let state = Mutex(State())

    init(rpc: FirestoreRPC) {
        self.rpc = rpc
        (events, eventSink) = AsyncStream.makeStream()
        (requests, requestSink) = AsyncStream.makeStream()
    }

    /// True once the server answered the handshake.
    package var handshakeComplete: Bool { state.withLock { $0.handshakeComplete } }

    /// The token of the last response (the core persists it).
    package var lastStreamToken: [UInt8] { state.withLock { $0.lastStreamToken } }

    /// Opens the call; a second start does nothing.
    package func start() {
        state.withLock { state in
            guard state.call == nil else { return }
            state.call = Task { await self.run() }
        }
    }

    /// Sends the handshake: the first request of a stream, naming the database and carrying no writes.
    package func writeHandshake() {
        var request = Google_Firestore_V1_WriteRequest()
        request.database = rpc.databaseName
        requestSink.yield(request)
    }

    /// Sends one batch of mutations with the last stream token; only after the handshake completed.
    package func write(_ mutations: [Mutation]) throws(FirestoreErrorCode) {
        var request = Google_Firestore_V1_WriteRequest()
        request.writes = try mutations.map { (mutation) throws(FirestoreErrorCode) in
            try rpc.serializer.encode(mutation)
        }
        let sent = state.withLock { state -> Bool in
            guard state.handshakeComplete else { return false }
            request.streamToken = Data(state.lastStreamToken)
            state.batchesInFlight.append(mutations.count)
            // Yield under the lock so batches go out in the order their counts were queued.
            requestSink.yield(request)
            return true
        }
        guard sent else {
            throw FirestoreErrorCode(
                .failedPrecondition,
                "A write was sent before the write stream's handshake completed; "
                    + "wait for .handshakeComplete before writing.")
        }
    }

    /// Ends the stream cleanly: after a handshake, an empty write with the last token, then a half-close.
    package func close() {
        state.withLock { state in
            if state.handshakeComplete {
                var request = Google_Firestore_V1_WriteRequest()
                request.streamToken = Data(state.lastStreamToken)
                requestSink.yield(request)
            }
        }
        requestSink.finish()
    }

    /// Ends the call at once; `.closed(.cancelled)` follows.
    package func cancel() {
        requestSink.finish()
        state.withLock { $0.call?.cancel() }
    }

    private func run() async {
        do {
            let metadata = try await rpc.metadata()
            try await rpc.stub.write(
                metadata: metadata,
                requestProducer: { [requests, eventSink] writer in
                    eventSink.yield(.opened)
                    for await request in requests { try await writer.write(request) }
                },
                onResponse: { response in
                    for try await message in response.messages { try self.receive(message) }
                })
            eventSink.yield(.closed(nil))
        } catch {
            eventSink.yield(.closed(rpc.failure(error)))
        }
        eventSink.finish()
    }

    private func receive(_ message: Google_Firestore_V1_WriteResponse) throws(FirestoreErrorCode) {
        let token = [UInt8](message.streamToken)
        let wasHandshake = state.withLock { state -> Bool in
            let wasHandshake = !state.handshakeComplete
            state.handshakeComplete = true
            state.lastStreamToken = token
            return wasHandshake
        }
        if wasHandshake {
            eventSink.yield(.handshakeComplete(streamToken: token))
            return
        }
        guard let count = state.withLock({ $0.batchesInFlight.isEmpty ? nil : $0.batchesInFlight.removeFirst() }) else {
            // The answer to the empty final write of close() carries no results; anything else is a server bug.
            guard message.writeResults.isEmpty else {
                throw FirestoreSerializer.malformed("a write response arrived with no batch in flight")
            }
            return
        }
        let ack = try rpc.serializer.decodeWriteResponse(message, writeCount: count)
        eventSink.yield(.response(streamToken: token, ack: ack))
    }
}

extension FirestoreRPC {
    /// A new, unstarted Write stream on this client's connection.
    package func makeWriteStream() -> WriteStream { WriteStream(rpc: self) }
}
