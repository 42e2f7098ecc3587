import CairnDatabaseCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection of the REST API: requests one after another (keep-alive), each body bounded; a GET
/// with `Accept: text/event-stream` turns the connection into an event stream until the client leaves or the
/// server stops.
struct RESTConnection {
    let channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    let core: DatabaseServerCore
    let configuration: DatabaseServerConfiguration

    func run() async {
        let logger = configuration.logger
        let remote = channel.channel.remoteAddress.map { "\($0)" } ?? "?"
        logger.debug("REST connection from \(remote) opened")
        defer { logger.debug("REST connection from \(remote) closed") }
        do {
            try await channel.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { continue }
                    var body = Data()
                    var tooLarge = false
                    readBody: while let next = try await parts.next() {
                        switch next {
                        case .body(let chunk):
                            if body.count + chunk.readableBytes > configuration.maxMessageBytes { tooLarge = true } else { body.append(contentsOf: chunk.readableBytesView) }
                        case .end:
                            break readBody
                        case .head:
                            break
                        }
                    }
                    let target = RequestTarget(uri: head.uri, headers: head.headers, configuration: configuration)
                    logger.debug("REST \(head.method.rawValue) \(target.path) (namespace \(target.namespace))")
                    if tooLarge {
                        let error = ServerError(.invalidData, "the request body is over \(configuration.maxMessageBytes) bytes")
                        try await write(.error(error), keepAlive: false, to: outbound)
                        return
                    }
                    let request = RESTRequestHandler.Request(method: head.method, target: target, headers: head.headers, body: body)
                    if head.method == .GET, head.headers.first(name: "accept")?.contains("text/event-stream") == true {
                        try await stream(request, to: outbound)
                        return
                    }
                    let response = RESTRequestHandler(core: core).respond(request)
                    try await write(response, keepAlive: head.isKeepAlive, to: outbound)
                    if !head.isKeepAlive { return }
                }
            }
        } catch {
            logger.debug("a REST connection failed: \(error)")
        }
    }

    private func write(_ response: RESTResponse, keepAlive: Bool, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        var headers = HTTPHeaders()
        if !response.body.isEmpty { headers.add(name: "Content-Type", value: "application/json; charset=utf-8") }
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        let body = ByteBuffer(string: response.body)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers)))
        if body.readableBytes > 0 { try await outbound.write(.body(.byteBuffer(body))) }
        try await outbound.write(.end(nil))
    }

    /// Streams `put`/`patch` events for the request's location, with `keep-alive` events when idle.
    private func stream(_ request: RESTRequestHandler.Request, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        let path: DatabasePath
        do {
            path = try RESTRequestHandler.databasePath(request.target)
        } catch {
            try await write(.error(error), keepAlive: false, to: outbound)
            return
        }
        let (events, continuation) = AsyncStream.makeStream(
            of: ServerOutput.self, bufferingPolicy: .bufferingOldest(configuration.maxQueuedMessages))
        let streamID: Int
        do {
            streamID = try core.openStream(namespace: request.target.namespace, path: path, auth: RESTRequestHandler.auth(request)) { output in
                if case .dropped = continuation.yield(output) { continuation.finish() }
            }
        } catch {
            try await write(.error(error), keepAlive: false, to: outbound)
            return
        }
        defer { core.closeStream(streamID) }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-cache")
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        let closed = channel.channel.closeFuture
        let interval = configuration.keepAliveInterval
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await closed.get()
                continuation.finish()
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: interval)
                    continuation.yield(.message(EventStreamFormat.keepAlive))
                }
            }
            group.addTask {
                for await event in events {
                    guard case .message(let text) = event else { break }
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(string: text))))
                }
            }
            defer { group.cancelAll() }
            _ = try await group.next()
            continuation.finish()
        }
    }
}
