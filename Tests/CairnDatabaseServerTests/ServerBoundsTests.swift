import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Server bounds: what one connection may hold or send is limited; going over ends only that request or connection", .serialized)
struct ServerBoundsTests {
    /// Whether the server ends the connection next (a close frame, the end of the stream, or a reset).
    static func isClosed(_ frames: inout WebSocketClient.Frames) async -> Bool {
        do {
            return try await frames.next() == nil
        } catch {
            return true
        }
    }

    @Test("Over-long messages close their connection (a split message announcing too many frames, one frame over the limit); the server keeps serving")
    func overLongMessagesCloseTheirConnection() async throws {
        var configuration = DatabaseServerConfiguration()
        configuration.maxMessageBytes = 40_000
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let announcedTooMany = try await WebSocketClient.connect(port: port, namespace: "bounds") { frames, writer -> Bool in
            _ = try await frames.next()
            try await writer.send("5")
            return await Self.isClosed(&frames)
        }
        #expect(announcedTooMany)
        let splitTooLong = try await WebSocketClient.connect(port: port, namespace: "bounds") { frames, writer -> Bool in
            _ = try await frames.next()
            try await writer.send("3")
            for _ in 0..<3 { try await writer.send(String(repeating: "x", count: 16_000)) }
            return await Self.isClosed(&frames)
        }
        #expect(splitTooLong)
        let frameTooLong = try await WebSocketClient.connect(port: port, namespace: "bounds") { frames, writer -> Bool in
            _ = try await frames.next()
            try await writer.send(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"big","d":""# + String(repeating: "x", count: 50_000) + #""}}}"#)
            return await Self.isClosed(&frames)
        }
        #expect(frameTooLong)
        let ack = try await WebSocketClient.connect(port: port, namespace: "bounds") { frames, writer -> String? in
            _ = try await frames.next()
            try await writer.send(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"small","d":1}}}"#)
            return try await frames.next()
        }
        #expect(json(ack ?? "").response(to: 1)?["s"] == .string("ok"))
        #expect(server.core.read(namespace: "bounds", path: .root).exportJSON() == json(#"{"small":1}"#))
        await server.stop()
    }

    @Test("A REST body over the limit is answered 400 with a message and nothing is written")
    func overLongRESTBody() async throws {
        var configuration = DatabaseServerConfiguration()
        configuration.maxMessageBytes = 40_000
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let answer = try await ServerRESTTests.request("PUT", port, "/big.json?ns=bounds", body: "\"" + String(repeating: "x", count: 50_000) + "\"")
        #expect(answer.status == 400)
        #expect(answer.body["error"] != nil)
        #expect(server.core.read(namespace: "bounds", path: .root).isEmpty)
        await server.stop()
    }

    @Test("Listens and onDisconnect operations beyond a connection's limits are answered failed; the connection keeps working")
    func perConnectionLimits() {
        var limits = DatabaseServerCore.Limits()
        limits.listensPerConnection = 2
        limits.onDisconnectPerConnection = 2
        let core = DatabaseServerCore(host: "127.0.0.1:9000", limits: limits, clock: { 1_700_000_000_000 })
        let client = SessionRecorder(core: core)
        _ = client.take()
        var statuses: [JSONValue?] = []
        for path in ["/a", "/b", "/a", "/c"] {
            let number = client.send("q", .object(["p": .string(path), "h": .string("")]))
            statuses.append(client.take().response(to: number)?["s"])
        }
        #expect(statuses == [.string("ok"), .string("ok"), .string("ok"), .string("failed")])
        statuses = []
        for path in ["/x", "/y", "/x", "/z"] {
            let number = client.send("o", .object(["p": .string(path), "d": .bool(true)]))
            statuses.append(client.take().response(to: number)?["s"])
        }
        #expect(statuses == [.string("ok"), .string("ok"), .string("ok"), .string("failed")])
        let put = client.send("p", json(#"{"p":"/d","d":1}"#))
        #expect(client.take().response(to: put)?["s"] == .string("ok"))
        core.close(client.id)
        #expect(core.read(namespace: "test", path: .root).exportJSON() == json(#"{"d":1,"x":true,"y":true}"#))
    }
}
