import CairnCore
import Cairn
import CairnModel
import CairnLocalStore
import Testing

@testable import CairnGRPC

/// The Listen and Write bidirectional streams against the official Firestore emulator.
extension EmulatorTests {
    @Suite("Listen and Write streams", .serialized)
    struct Streams {
        let rooms = Query(path: ResourcePath(segments: ["rooms"]))

        func key(_ path: String) throws -> DocumentKey { try DocumentKey(parsing: path) }

        static func isGlobalSnapshot(_ event: ListenStream.Event) -> Bool {
            if case .change(_, let version) = event { return version != TargetData.noSnapshotVersion }
            return false
        }

        static func state(_ event: ListenStream.Event) -> (WatchTargetChangeState, [Int32], [UInt8])? {
            if case .change(.targetChange(let state, let ids, let token, _), _) = event { return (state, ids, token) }
            return nil
        }

        static func document(_ event: ListenStream.Event) -> (DocumentKey, Document?, [Int32])? {
            if case .change(.documentChange(let updated, _, let key, let document), _) = event {
                return (key, document, updated)
            }
            return nil
        }

        @Test(
            "Listen: ADD, the document, CURRENT with a resume token, a global snapshot; then a second commit's change")
        func listen() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-listen")
            defer { rpc.shutdown() }
            let first = try key("rooms/a")
            _ = try await rpc.commit([.set(first, value: ObjectValue(["n": .integer(1)]))])

            let stream = rpc.makeListenStream()
            let recorder = EventRecorder(stream.events)
            stream.start()
            try stream.watch(TargetData(targetID: 2, query: rooms))
            let added = try await recorder.first { Self.state($0)?.0 == .added }
            #expect(Self.state(added.event)?.1 == [2])
            let initial = try await recorder.first(from: added.index) { Self.document($0) != nil }
            #expect(Self.document(initial.event)?.0 == first)
            #expect(Self.document(initial.event)?.1?.data.fields["n"] == .integer(1))
            #expect(Self.document(initial.event)?.2 == [2])
            let current = try await recorder.first(from: initial.index) { Self.state($0)?.0 == .current }
            #expect(Self.state(current.event)?.1 == [2])
            #expect(Self.state(current.event)?.2.isEmpty == false)
            let snapshot = try await recorder.first(from: current.index, where: Self.isGlobalSnapshot)

            let second = try key("rooms/b")
            let ack = try await rpc.commit([.set(second, value: ObjectValue(["n": .integer(2)]))])
            let change = try await recorder.first(from: snapshot.index) { Self.document($0)?.0 == second }
            #expect(Self.document(change.event)?.1?.version == ack.results[0].version)
            let later = try await recorder.first(from: change.index, where: Self.isGlobalSnapshot)
            guard case .change(_, let version) = later.event else { return }
            #expect(version >= ack.commitVersion)

            stream.unwatch(targetID: 2)
            let removed = try await recorder.first(from: later.index) { Self.state($0)?.0 == .removed }
            #expect(Self.state(removed.event)?.1 == [2])
            stream.finish()
            let closed = try await recorder.first { if case .closed = $0 { true } else { false } }
            guard case .closed(let error) = closed.event else { return }
            #expect(error == nil)
        }

        @Test("Listen: a resumed target and a documents target for a missing document both reach CURRENT")
        func listenResumeAndDocuments() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-listen-resume")
            defer { rpc.shutdown() }
            let stream = rpc.makeListenStream()
            let recorder = EventRecorder(stream.events)
            stream.start()
            try stream.watch(TargetData(targetID: 4, query: Query(path: ResourcePath(segments: ["rooms", "missing"]))))
            let missing = try await recorder.first { Self.document($0)?.0 == (try? key("rooms/missing")) }
            #expect(Self.document(missing.event)?.1?.state == .noDocument)
            let current = try await recorder.first { Self.state($0)?.0 == .current && Self.state($0)?.1 == [4] }
            let token = Self.state(current.event)?.2 ?? []
            stream.cancel()

            _ = try await rpc.commit([.set(try key("rooms/c"), value: ObjectValue(["n": .integer(3)]))])
            let resumed = rpc.makeListenStream()
            let resumedRecorder = EventRecorder(resumed.events)
            resumed.start()
            try resumed.watch(TargetData(targetID: 6, query: rooms, resumeToken: token, expectedCount: 0))
            let change = try await resumedRecorder.first { Self.document($0)?.0 == (try? key("rooms/c")) }
            _ = try await resumedRecorder.first(from: change.index) { Self.state($0)?.0 == .current }
            resumed.cancel()
        }

        @Test("Write: the handshake returns a token; each batch is acknowledged with a new token, version and results")
        func writeStream() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-write-stream")
            defer { rpc.shutdown() }
            let stream = rpc.makeWriteStream()
            let recorder = EventRecorder(stream.events)
            stream.start()
            stream.writeHandshake()
            let handshake = try await recorder.first { if case .handshakeComplete = $0 { true } else { false } }
            guard case .handshakeComplete(let handshakeToken) = handshake.event else { return }
            #expect(!handshakeToken.isEmpty)
            #expect(stream.handshakeComplete)

            let document = try key("rooms/w")
            let counter = try FieldPath(["count"])
            try stream.write([
                .set(
                    document, value: ObjectValue(["count": .integer(1)]), precondition: .exists(false),
                    transforms: [
                        FieldTransform(field: try FieldPath(["at"]), operation: .serverTimestamp),
                        FieldTransform(field: counter, operation: .increment(.integer(5))),
                    ])
            ])
            let firstAck = try await recorder.first(from: handshake.index) {
                if case .response = $0 { true } else { false }
            }
            guard case .response(let firstToken, let ack) = firstAck.event else { return }
            #expect(firstToken != handshakeToken)
            #expect(stream.lastStreamToken == firstToken)
            #expect(ack.results.count == 1)
            #expect(ack.results[0].transformResults.count == 2)
            #expect(ack.results[0].transformResults[1] == .integer(6))
            #expect(ack.results[0].version == ack.commitVersion)

            // The next batch carries the token just received.
            try stream.write([.delete(document)])
            let secondAck = try await recorder.first(from: firstAck.index + 1) {
                if case .response = $0 { true } else { false }
            }
            guard case .response(let secondToken, let deleteAck) = secondAck.event else { return }
            #expect(secondToken != firstToken)
            #expect(deleteAck.commitVersion > ack.commitVersion)
            #expect(try await rpc.lookup([document])[0].state == .noDocument)

            // Updating the deleted document ends the stream with NOT_FOUND, which applies to this batch.
            try stream.write([.patch(document, value: ObjectValue(["count": .integer(1)]), mask: FieldMask([counter]))])
            let closed = try await recorder.first(from: secondAck.index) {
                if case .closed = $0 { true } else { false }
            }
            guard case .closed(let error) = closed.event else { return }
            #expect(error?.code == .notFound)
        }

        @Test("Write: writing before the handshake completes is refused; close() ends the stream cleanly")
        func writeStreamLifecycle() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-write-lifecycle")
            defer { rpc.shutdown() }
            let stream = rpc.makeWriteStream()
            let recorder = EventRecorder(stream.events)
            expectFirestoreError(.failedPrecondition) { try stream.write([.delete(try key("rooms/x"))]) }
            stream.start()
            stream.writeHandshake()
            _ = try await recorder.first { if case .handshakeComplete = $0 { true } else { false } }
            stream.close()
            let closed = try await recorder.first { if case .closed = $0 { true } else { false } }
            guard case .closed(let error) = closed.event else { return }
            #expect(error == nil)
        }
    }
}
