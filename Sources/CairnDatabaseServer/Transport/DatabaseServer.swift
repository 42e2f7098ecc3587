import CairnDatabaseCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// The local Realtime Database server: one HTTP/1.1 port that upgrades `/.ws?v=5&ns=NS` to Firebase's v5 WebSocket
/// protocol and serves the REST API at `/<path>.json?ns=NS`, over a ``DatabaseServerCore``.
///
/// ```swift
/// let server = DatabaseServer(configuration: DatabaseServerConfiguration())
/// let port = try await server.start()           // ws://127.0.0.1:<port>/.ws?v=5&ns=demo
/// server.core.refuse(DatabasePath(keys: ["locked"]), namespace: "demo")   // a test hook
/// await server.stop()
/// ```
package final class DatabaseServer: Sendable {
    package let configuration: DatabaseServerConfiguration
    /// The database and the test hooks (drop a connection, hold acknowledgements, refuse a path).
    package let core: DatabaseServerCore

    enum Connection: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, namespace: String)
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>)
    }

    private struct Running: Sendable {
        var channel: Channel
        var task: Task<Void, Never>
    }

    private let running = Mutex<Running?>(nil)
    /// Every open connection, closed by ``stop()``.
    private let connections = Mutex<[ObjectIdentifier: Channel]>([:])

    package init(configuration: DatabaseServerConfiguration) {
        self.configuration = configuration
        core = DatabaseServerCore(host: "\(configuration.host):\(configuration.port)", clock: configuration.clock, logger: configuration.logger)
    }

    /// Binds and starts serving; returns the bound port.
    ///
    /// - Throws: when the server runs already, or the address cannot be bound (in use, not local).
    package func start() async throws -> Int {
        if running.withLock({ $0 != nil }) {
            throw ServerError(.invalidRequest, "the server is running already; stop() it first")
        }
        let configuration = self.configuration
        if let rulesFile = configuration.rulesFile {
            core.setRules(try ServerRules(contentsOf: rulesFile))
        }
        if let directory = configuration.dataDirectory {
            let (storage, database) = try ServerStorage.open(directory: directory)
            try storage.compact()
            core.restore(database, storage: storage)
            configuration.logger.info("data restored from \(directory): \(database.namespaces.count) namespace(s)")
        }
        let channel: NIOAsyncChannel<EventLoopFuture<Connection>, Never>
        do {
            channel = try await Self.bind(configuration)
        } catch {
            try core.detachStorage()?.close()
            throw error
        }
        let port = channel.channel.localAddress?.port ?? configuration.port
        core.setHost("\(configuration.host):\(port)")
        // The accept loop and every connection (its child tasks) run on the server's own executor.
        let task = Task(executorPreference: ServerExecutor.shared) {
            await withDiscardingTaskGroup { group in
                do {
                    try await channel.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                } catch {
                    configuration.logger.error("the listening socket failed: \(error)")
                }
            }
        }
        running.withLock { $0 = Running(channel: channel.channel, task: task) }
        configuration.logger.info("listening on \(configuration.host):\(port)")
        return port
    }

    /// Stops accepting, closes every connection (their onDisconnects run) and waits until all are done.
    package func stop() async {
        guard let current = running.withLock({ state -> Running? in
            defer { state = nil }
            return state
        }) else { return }
        try? await current.channel.close()
        for channel in connections.withLock({ Array($0.values) }) { channel.close(promise: nil) }
        await current.task.value
        do {
            try core.detachStorage()?.close()
        } catch {
            configuration.logger.error("closing the data directory failed: \(error)")
        }
        configuration.logger.info("stopped")
    }

    private static func bind(_ configuration: DatabaseServerConfiguration) async throws -> NIOAsyncChannel<EventLoopFuture<Connection>, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configurePipeline(channel, configuration: configuration)
                }
            }
    }

    private static func configurePipeline(_ channel: Channel, configuration: DatabaseServerConfiguration) throws -> EventLoopFuture<Connection> {
        let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: min(configuration.maxMessageBytes, 1 << 24),
            shouldUpgrade: { channel, head in
                let isWebSocketPath = head.uri.split(separator: "?", maxSplits: 1).first == "/.ws"
                return channel.eventLoop.makeSucceededFuture(isWebSocketPath ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOWebSocketFrameAggregator(
                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 4096,
                        maxAccumulatedFrameSize: configuration.maxMessageBytes))
                    try sync.addHandler(IdleStateHandler(readTimeout: TimeAmount(configuration.idleTimeout)))
                    try sync.addHandler(IdleCloseHandler())
                    let namespace = RequestTarget(uri: head.uri, headers: head.headers, configuration: configuration).namespace
                    return Connection.webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel), namespace: namespace)
                }
            }
        )
        let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Connection>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    Connection.http(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            }
        )
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrade))
    }

    private func serve(_ negotiation: EventLoopFuture<Connection>) async {
        let connection: Connection
        do {
            connection = try await negotiation.get()
        } catch {
            configuration.logger.debug("a connection failed before its first request: \(error)")
            return
        }
        let channel: Channel
        switch connection {
        case .webSocket(let asyncChannel, _): channel = asyncChannel.channel
        case .http(let asyncChannel): channel = asyncChannel.channel
        }
        let key = ObjectIdentifier(channel)
        let stillRunning = running.withLock { $0 != nil }
        connections.withLock { $0[key] = channel }
        defer { connections.withLock { _ = $0.removeValue(forKey: key) } }
        guard stillRunning else {
            try? await channel.close()
            return
        }
        switch connection {
        case .webSocket(let asyncChannel, let namespace):
            await WebSocketSession(channel: asyncChannel, namespace: namespace, core: core, configuration: configuration).run()
        case .http(let asyncChannel):
            await RESTConnection(channel: asyncChannel, core: core, configuration: configuration).run()
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Closes a WebSocket that has been silent for the idle timeout (its onDisconnects then run).
final class IdleCloseHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
