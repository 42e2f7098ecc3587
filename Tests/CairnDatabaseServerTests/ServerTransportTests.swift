import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Server transport: WebSocket at /.ws over loopback", .serialized)
struct ServerTransportTests {
    static func message(_ text: String) -> JSONValue { json(text) }

    @Test("A message over 16,384 characters travels as a frame count and chunks, both ways")
    func bigMessagesAreSplitAndReassembled() async throws {
        // No idle timeout in reach: on a starved machine this test once ran 196 s and failed with "I/O on closed
        // channel", presumably the default 90 s idle timeout closing the connection between frames.
        var configuration = DatabaseServerConfiguration()
        configuration.idleTimeout = .seconds(3600)
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let big = String(repeating: "x", count: 40_000)
        let (ack, frames) = try await WebSocketClient.connect(port: port, namespace: "big") { frames, writer -> (String?, [String]) in
            _ = try await frames.next()
            let put = ServerMessages.encode(.object(["t": .string("d"), "d": .object(["r": .int(1), "a": .string("p"), "b": .object(["p": .string("big"), "d": .string(big)])])]))
            let chunks = stride(from: 0, to: put.count, by: 16_384).map { start in
                String(put.dropFirst(start).prefix(16_384))
            }
            try await writer.send(String(chunks.count))
            for chunk in chunks { try await writer.send(chunk) }
            let ack = try await frames.next()

            try await writer.send(#"{"t":"d","d":{"r":2,"a":"q","b":{"p":"big","h":""}}}"#)
            var received: [String] = []
            while let frame = try await frames.next() {
                received.append(frame)
                if json(frame).response(to: 2) != nil { break }
            }
            return (ack, received)
        }
        #expect(json(ack ?? "").response(to: 1)?["s"] == .string("ok"))
        // The data push (over 40,000 characters) as a count frame and three chunks, then the listen's ok.
        try #require(frames.count == 5, "frames: \(frames.map { $0.prefix(40) })")
        #expect(frames[0] == "3")
        #expect(frames[1...3].allSatisfy { $0.utf16.count <= 16_384 })
        let received = frames[1...3].joined()
        #expect(json(received).push?.body["d"] == .string(big))
        #expect(server.core.read(namespace: "big", path: DatabasePath(keys: ["big"])).exportJSON() == .string(big))
        await server.stop()
    }

    @Test("A connection silent for the idle timeout is closed and its onDisconnect runs")
    func idleConnectionsAreClosed() async throws {
        var configuration = DatabaseServerConfiguration()
        configuration.idleTimeout = .seconds(2)
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let closedByServer = try await WebSocketClient.connect(port: port, namespace: "idle") { frames, writer -> Bool in
            _ = try await frames.next()
            try await writer.send(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"status","d":"offline"}}}"#)
            _ = try await frames.next()
            let started = ContinuousClock.now
            let next = try await frames.next()
            return next == nil && ContinuousClock.now - started < .seconds(60)
        }
        #expect(closedByServer)
        try await waitUntil { server.core.read(namespace: "idle", path: DatabasePath(keys: ["status"])).exportJSON() == .string("offline") }
        await server.stop()
    }

    @Test("Stopping the server closes its connections and runs their onDisconnects; it starts again on the same port")
    func stopAndRestart() async throws {
        var configuration = DatabaseServerConfiguration()
        let first = DatabaseServer(configuration: configuration)
        let port = try await first.start()
        let task = Task {
            try await WebSocketClient.connect(port: port, namespace: "restart") { frames, writer -> Bool in
                _ = try await frames.next()
                try await writer.send(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"left","d":true}}}"#)
                try await writer.send(#"{"t":"d","d":{"r":2,"a":"p","b":{"p":"joined","d":true}}}"#)
                while try await frames.next() != nil {}
                return true
            }
        }
        try await waitUntil { !first.core.read(namespace: "restart", path: DatabasePath(keys: ["joined"])).isEmpty }
        await first.stop()
        #expect(try await task.value)
        #expect(first.core.read(namespace: "restart", path: DatabasePath(keys: ["left"])).exportJSON() == .bool(true))
        configuration.port = port
        let second = DatabaseServer(configuration: configuration)
        #expect(try await second.start() == port)
        await second.stop()
    }
}

/// Polls `condition` every 20 ms for up to 60 s (a hang guard on a loaded machine, not a timing assertion).
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the condition did not become true within 60 s")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
