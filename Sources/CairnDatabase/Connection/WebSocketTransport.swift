import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A WebSocket client on swift-nio: TCP (`ClientBootstrap`, 30 s connect timeout), TLS for `wss://` (NIOSSL with
/// the system's trust roots, the host name checked), the HTTP/1.1 upgrade (`NIOTypedWebSocketClientUpgrader`),
/// then text frames both ways. Fragmented frames are joined (``maxFrameBytes`` at most); pings are answered; a
/// close frame is answered and ends the socket. Every outcome ends in one `closed` event.
///
/// ```swift
/// let transport = WebSocketTransport.open(address) { event in print(event) }
/// transport.send("0")
/// ```
final class WebSocketTransport: ConnectionTransport {
    /// The largest frame accepted from the server, in bytes (Firebase's frames are 16,384 characters, up to four
    /// UTF-8 bytes each).
    static let maxFrameBytes = 1 << 20
    static let connectTimeout = TimeAmount.seconds(30)
    /// One TLS context for every `wss://` connection (it loads the system's trust roots once).
    private static let tlsContext = Result { try NIOSSLContext(configuration: .makeClientConfiguration()) }

    private enum State {
        case connecting(pending: [String])
        case open(any Channel)
        case closed
    }

    private let state = Mutex(State.connecting(pending: []))
    private let onEvent: @Sendable (TransportEvent) -> Void
    private let finished = Atomic(false)

    private init(onEvent: @escaping @Sendable (TransportEvent) -> Void) {
        self.onEvent = onEvent
    }

    /// Starts connecting to `address` on the shared event loop group.
    static func open(_ address: WebSocketAddress, onEvent: @escaping @Sendable (TransportEvent) -> Void) -> WebSocketTransport {
        let transport = WebSocketTransport(onEvent: onEvent)
        transport.connect(address, group: MultiThreadedEventLoopGroup.singleton)
        return transport
    }

    func send(_ frame: String) {
        let channel: (any Channel)? = state.withLock { state in
            switch state {
            case .connecting(var pending):
                pending.append(frame)
                state = .connecting(pending: pending)
                return nil
            case .open(let channel): return channel
            case .closed: return nil
            }
        }
        if let channel { Self.write(frame, to: channel) }
    }

    func close() {
        let channel: (any Channel)? = state.withLock { state in
            defer { state = .closed }
            if case .open(let channel) = state { return channel }
            return nil
        }
        // Reported first: the channel's own close (on its event loop) must not report a reason for a local close.
        finish(reason: nil)
        if let channel {
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer())
            channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private static func write(_ frame: String, to channel: any Channel) {
        let data = channel.allocator.buffer(string: frame)
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: data), promise: nil)
    }

    /// Reports `closed` once.
    fileprivate func finish(reason: String?) {
        state.withLock { $0 = .closed }
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        onEvent(.closed(reason: reason))
    }

    fileprivate func received(_ frame: String) {
        guard !finished.load(ordering: .acquiring) else { return }
        onEvent(.received(frame))
    }

    private func opened(_ channel: any Channel) {
        let pending: [String]? = state.withLock { state in
            guard case .connecting(let pending) = state else { return nil }
            state = .open(channel)
            return pending
        }
        guard let pending else {
            channel.close(promise: nil)
            return
        }
        onEvent(.opened)
        for frame in pending { Self.write(frame, to: channel) }
    }

    private enum Upgrade: Sendable {
        case upgraded(any Channel)
        case refused(HTTPResponseStatus?)
    }

    private func connect(_ address: WebSocketAddress, group: any EventLoopGroup) {
        let tls: NIOSSLContext?
        if address.secure {
            do {
                tls = try Self.tlsContext.get()
            } catch {
                finish(reason: "TLS set-up failed: \(error)")
                return
            }
        } else {
            tls = nil
        }
        let bootstrap = ClientBootstrap(group: group).connectTimeout(Self.connectTimeout)
        let upgrade: EventLoopFuture<EventLoopFuture<Upgrade>> = bootstrap.connect(host: address.host, port: address.port).flatMap { channel in
            channel.eventLoop.makeCompletedFuture {
                if let tls {
                    let serverName = address.host.contains(":") || address.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : address.host
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                }
                // The server's hello may arrive in the same read as its 101 response: forward those bytes to the
                // WebSocket decoder (NIO drops them by default).
                var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: self.upgradeConfiguration(address))
                configuration.leftOverBytesStrategy = .forwardBytes
                return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
            }
        }
        upgrade.flatMap { $0 }.whenComplete { [self] result in
            switch result {
            case .success(.upgraded(let channel)):
                channel.closeFuture.whenComplete { [self] _ in finish(reason: "the socket closed") }
                opened(channel)
            case .success(.refused(let status)):
                finish(reason: "the server refused the WebSocket upgrade" + (status.map { " (HTTP \($0.code))" } ?? ""))
            case .failure(let error):
                finish(reason: "cannot connect to \(address.hostHeader): \(error)")
            }
        }
    }

    private func upgradeConfiguration(_ address: WebSocketAddress) -> NIOTypedHTTPClientUpgradeConfiguration<Upgrade> {
        let maxFrameBytes = Self.maxFrameBytes
        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameBytes) { [self] channel, _ in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(
                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024, maxAccumulatedFrameSize: maxFrameBytes))
                try channel.pipeline.syncOperations.addHandler(WebSocketFrameHandler(transport: self))
                return Upgrade.upgraded(channel)
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: address.hostHeader)
        headers.add(name: "User-Agent", value: "Cairn/5 (Swift)")
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: address.target, headers: headers)
        return NIOTypedHTTPClientUpgradeConfiguration(upgradeRequestHead: head, upgraders: [upgrader]) { channel in
            channel.eventLoop.makeCompletedFuture { Upgrade.refused(nil) }
        }
    }
}

/// The end of the pipeline after the upgrade: text frames to the transport, pongs for pings, a close frame
/// answered and the channel closed.
private final class WebSocketFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let transport: WebSocketTransport
    private var closing = false

    init(transport: WebSocketTransport) { self.transport = transport }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            transport.received(String(buffer: frame.unmaskedData))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            guard !closing else { return context.close(promise: nil) }
            closing = true
            let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: ByteBuffer())
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(reply), promise: written)
            written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            transport.finish(reason: "the server sent a close frame")
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        transport.finish(reason: "WebSocket error: \(error)")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        transport.finish(reason: "the server closed the connection")
        context.fireChannelInactive()
    }
}
