@testable import CairnDatabase
import Crypto
import Foundation
import NIOCore
import NIOPosix
import Testing

/// A loopback server written byte by byte, so that the test decides exactly what the client reads and when: it
/// answers the first HTTP request with `reply(key)` in one write, then records what the client sends.
private final class RawServer: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [UInt8] = []
    private var channel: (any Channel)?

    func start(reply: @escaping @Sendable (_ key: String) -> [UInt8]) async throws -> Int {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawHandler(server: self, reply: reply))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        lock.withLock { self.channel = channel }
        return channel.localAddress!.port!
    }

    func stop() async { try? await lock.withLock { channel }?.close() }

    fileprivate func record(_ bytes: [UInt8]) { lock.withLock { received += bytes } }
    var bytes: [UInt8] { lock.withLock { received } }

    /// The 101 response for `key` (with the accept hash the client checks).
    static func switching(_ key: String) -> [UInt8] {
        let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        return Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
    }

    /// An unmasked server text frame.
    static func textFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return frame + payload
    }
}

private final class RawHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let server: RawServer
    private let reply: @Sendable (String) -> [UInt8]
    private var request = ""
    private var answered = false

    init(server: RawServer, reply: @escaping @Sendable (String) -> [UInt8]) {
        self.server = server
        self.reply = reply
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        guard !answered else { return server.record(bytes) }
        request += String(decoding: bytes, as: UTF8.self)
        guard request.contains("\r\n\r\n") else { return }
        answered = true
        let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? ""
        server.record(Array(request.utf8))
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: reply(key))), promise: nil)
    }
}

private final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [TransportEvent] = []
    func add(_ event: TransportEvent) { lock.withLock { stored.append(event) } }
    var all: [TransportEvent] { lock.withLock { stored } }
}

private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(60)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return true
}

@Suite("WebSocket transport on swift-nio")
struct WebSocketTransportTests {
    private static let hello = #"{"t":"c","d":{"t":"h","d":{"ts":1,"v":"5","h":"127.0.0.1","s":"s1"}}}"#

    @Test("A frame that arrives in the same read as the 101 response is delivered (the server's hello)")
    func frameWithUpgradeResponse() async throws {
        let server = RawServer()
        let port = try await server.start { key in RawServer.switching(key) + RawServer.textFrame(Self.hello) }
        let events = Events()
        let address = try #require(WebSocketAddress(secure: false, authority: "127.0.0.1:\(port)", target: "/.ws?v=5&ns=demo"))
        let transport = WebSocketTransport.open(address) { events.add($0) }
        #expect(await eventually { events.all.count >= 2 })
        // The frame may be read before the upgrade's completion is reported: the order of the two is free.
        #expect(events.all.contains(.opened))
        #expect(events.all.contains(.received(Self.hello)))
        #expect(events.all.count == 2)

        transport.send("0")
        #expect(await eventually { server.bytes.count > 0 && String(decoding: server.bytes, as: UTF8.self).contains("\r\n\r\n") })
        let request = String(decoding: server.bytes, as: UTF8.self)
        #expect(request.hasPrefix("GET /.ws?v=5&ns=demo HTTP/1.1\r\n"))
        #expect(request.contains("Host: 127.0.0.1:\(port)\r\n"))
        transport.close()
        #expect(await eventually { events.all.last == .closed(reason: nil) })
        await server.stop()
    }

    @Test("A refused upgrade and an unreachable port each end in one closed event with a reason")
    func failuresClose() async throws {
        let server = RawServer()
        let port = try await server.start { _ in Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8) }
        let events = Events()
        let refused = try #require(WebSocketAddress(secure: false, authority: "127.0.0.1:\(port)", target: "/.ws"))
        _ = WebSocketTransport.open(refused) { events.add($0) }
        #expect(await eventually { !events.all.isEmpty })
        guard case .closed(let reason?)? = events.all.first else { Issue.record("\(events.all)"); return }
        #expect(reason.contains("refused") || reason.contains("upgrade"), "\(reason)")
        await server.stop()

        let unreachable = Events()
        _ = WebSocketTransport.open(refused) { unreachable.add($0) }
        #expect(await eventually { !unreachable.all.isEmpty })
        guard case .closed(let why?)? = unreachable.all.first else { Issue.record("\(unreachable.all)"); return }
        #expect(why.contains("cannot connect"), "\(why)")
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(events.all.count == 1)
        #expect(unreachable.all.count == 1)
    }
}
