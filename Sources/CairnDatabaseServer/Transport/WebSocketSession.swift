import CairnDatabaseCore
import Logging
import NIOCore
import NIOWebSocket

/// One v5 WebSocket connection: text frames are reassembled into messages (Firebase's frame-count prefix) and
/// handed to the core in order; the core's outputs are queued (bounded: a connection that cannot keep up is
/// closed) and written as text frames, split when over 16,384 characters. Pings are answered; a close frame,
/// a dropped socket or the idle timeout ends the session and runs its onDisconnects.
struct WebSocketSession {
    let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    let namespace: String
    let core: DatabaseServerCore
    let configuration: DatabaseServerConfiguration

    func run() async {
        let logger = configuration.logger
        let remote = channel.channel.remoteAddress.map { "\($0)" } ?? "?"
        let (outputs, continuation) = AsyncStream.makeStream(
            of: ServerOutput.self, bufferingPolicy: .bufferingOldest(configuration.maxQueuedMessages))
        let id = core.openSession(namespace: namespace) { output in
            if case .dropped = continuation.yield(output) {
                logger.error("a connection fell \(configuration.maxQueuedMessages) messages behind; closing it")
                continuation.finish()
            }
        }
        logger.debug("\(id) from \(remote) opened, namespace \(namespace)")
        do {
            try await channel.executeThenClose { inbound, outbound in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await output in outputs {
                            guard case .message(let text) = output else { break }
                            for frame in WireFrames.split(text) {
                                try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: frame)))
                            }
                        }
                    }
                    group.addTask {
                        var reassembler = FrameReassembler(maxMessageBytes: configuration.maxMessageBytes)
                        for try await frame in inbound {
                            switch frame.opcode {
                            case .text:
                                let message: String?
                                do {
                                    message = try reassembler.receive(String(buffer: frame.unmaskedData))
                                } catch {
                                    logger.debug("\(id): \(error); closing")
                                    return
                                }
                                if let message {
                                    logger.debug("\(id) ← \(Self.summary(message))")
                                    core.receive(message, from: id)
                                }
                            case .ping:
                                try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                            case .connectionClose:
                                return
                            default:
                                break
                            }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                    continuation.finish()
                }
            }
        } catch {
            logger.debug("\(id) failed: \(error)")
        }
        continuation.finish()
        core.close(id)
        logger.debug("\(id) closed")
    }

    /// The action and path of a request, never its body (which may hold a token).
    private static func summary(_ message: String) -> String {
        guard case .request(let number, let action, let body)? = try? WireMessage(text: message) else {
            return "a message of \(message.utf8.count) bytes"
        }
        var line = "request \(number) \(action)"
        if case .string(let path)? = body.objectValue?["p"] { line += " /\(path)" }
        return line
    }
}
