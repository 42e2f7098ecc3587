import CairnCore
import CairnModel
import GRPCCore
import CairnLocalStore
import Synchronization

/// The Listen (watch) stream: add and remove targets, receive the core's `WatchChange`s as ``events``.
///
/// ``start()`` opens the bidirectional call (`.opened` follows once the call is established); ``watch(_:)`` and
/// ``unwatch(targetID:)`` queue requests in order; every server message arrives as `.change`, decoded, with its
/// global snapshot version (`TargetData.noSnapshotVersion` unless the message is a consistent snapshot of the
/// whole stream); `.closed` ends the sequence: nil after a clean
/// end, else the error (UNAVAILABLE when the connection is lost, so the core can back off and mark listeners
/// `fromCache`). The core's callback-style `WatchStream` wraps this object and forwards events onto its queue.
///
/// ```swift
/// let stream = rpc.makeListenStream()
/// stream.start()
/// try stream.watch(TargetData(targetID: 2, query: Query(path: ResourcePath(segments: ["rooms"]))))
/// for await event in stream.events {
///     if case .change(.targetChange(.current, [2], let token, _), _) = event { resumeToken = token }
/// }
/// ```
package final class ListenStream: Sendable {
    package enum Event: Sendable {
        case opened
        case change(WatchChange, snapshotVersion: Timestamp)
        case closed(FirestoreErrorCode?)
    }

    /// Everything the stream reports, in order; finishes after `.closed`.
    package let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let requests: AsyncStream<Google_Firestore_V1_ListenRequest>
    private let requestSink: AsyncStream<Google_Firestore_V1_ListenRequest>.Continuation
    private let rpc: FirestoreRPC
    private let call = Mutex<Task<Void, Never>?>(nil)

    init(rpc: FirestoreRPC) {
        self.rpc = rpc
        (events, eventSink) = AsyncStream.makeStream()
        (requests, requestSink) = AsyncStream.makeStream()
    }

    /// Opens the call; a second start does nothing.
    package func start() {
        call.withLock { task in
            guard task == nil else { return }
            task = Task { await self.run() }
        }
    }

    /// Asks the server to listen to a target, resuming from its resume token or snapshot version.
    package func watch(_ targetData: TargetData) throws(FirestoreErrorCode) {
        var request = Google_Firestore_V1_ListenRequest()
        request.database = rpc.databaseName
        request.addTarget = try rpc.serializer.encodeListenTarget(targetData)
        requestSink.yield(request)
    }

    /// Asks the server to stop listening to a target (it answers with a REMOVE target change).
    package func unwatch(targetID: Int32) {
        var request = Google_Firestore_V1_ListenRequest()
        request.database = rpc.databaseName
        request.removeTarget = targetID
        requestSink.yield(request)
    }

    /// Half-closes the call: no more requests; the server then ends the stream (`.closed(nil)`).
    package func finish() { requestSink.finish() }

    /// Ends the call at once; `.closed(.cancelled)` follows.
    package func cancel() {
        requestSink.finish()
        call.withLock { $0?.cancel() }
    }

    private func run() async {
        do {
            let metadata = try await rpc.metadata()
            try await rpc.stub.listen(
                metadata: metadata,
                requestProducer: { [requests, eventSink] writer in
                    eventSink.yield(.opened)
                    for await request in requests { try await writer.write(request) }
                },
                onResponse: { [rpc, eventSink] response in
                    for try await message in response.messages {
                        let change = try rpc.serializer.decodeListenResponse(message)
                        let version = try rpc.serializer.decodeSnapshotVersion(message)
                        eventSink.yield(.change(change, snapshotVersion: version))
                    }
                })
            eventSink.yield(.closed(nil))
        } catch {
            eventSink.yield(.closed(rpc.failure(error)))
        }
        eventSink.finish()
    }
}

extension FirestoreRPC {
    /// A new, unstarted Listen stream on this client's connection.
    package func makeListenStream() -> ListenStream { ListenStream(rpc: self) }
}
