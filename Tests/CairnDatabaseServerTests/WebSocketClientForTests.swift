import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing

/// A raw WebSocket client for the transport tests: it upgrades `/.ws?v=5&ns=...` on a loopback port and hands the
/// test a reader of text frames and a writer of (masked) text frames. The connection is closed after 15 s at most.
enum WebSocketClient {
    struct Frames {
        fileprivate var iterator: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator

        /// The next text frame, nil when the server closed the connection.
        mutating func next() async throws -> String? {
            while let frame = try await iterator.next() {
                switch frame.opcode {
                case .text: return String(buffer: frame.unmaskedData)
                case .connectionClose: return nil
                default: continue
                }
            }
            return nil
        }
    }

    struct Writer {
        fileprivate let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>

        func send(_ text: String) async throws {
            try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
        }
    }

    enum Upgrade: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    static func connect<T: Sendable>(
        port: Int, namespace: String, _ body: (inout Frames, Writer) async throws -> T
    ) async throws -> T {
        let negotiation: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                        maxFrameSize: 1 << 24,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                Upgrade.webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                            }
                        })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/.ws?v=5&ns=\(namespace)", headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(Upgrade.refused) })
                    // The hello may arrive in the same read as the 101: forward those bytes (NIO drops them by
                    // default, and the client would then wait for a hello that never comes).
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        guard case .webSocket(let channel) = try await negotiation.get() else {
            throw WebSocketClientError.refused
        }
        // A test that waits for a frame that never comes fails after 60 s instead of hanging (the project's hang
        // guard: 15 s was reached on a loaded machine, a full test run beside a CI build).
        let deadline = channel.channel.eventLoop.scheduleTask(in: .seconds(60)) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var frames = Frames(iterator: inbound.makeAsyncIterator())
            return try await body(&frames, Writer(outbound: outbound))
        }
    }

    enum WebSocketClientError: Error {
        case refused
    }
}
