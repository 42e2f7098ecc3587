import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Logging
import Synchronization
import Testing

/// A swift-log handler that keeps every line with its level and label.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    final class Lines: Sendable {
        let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }
    }

    let label: String
    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init(label: String, lines: Lines) {
        self.label = label
        self.lines = lines
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.list.withLock { $0.append("\(label) \(event.level) \(event.message)") }
    }
}

@Suite("Server logging: each connection and request at debug level under cairn.database-server, never a token", .serialized)
struct ServerLoggingTests {
    @Test("A WebSocket connection's opening, requests and close and a REST request are logged at debug; the tokens are not")
    func connectionsAndRequestsLogged() async throws {
        let lines = RecordingLogHandler.Lines()
        var configuration = DatabaseServerConfiguration()
        configuration.logger = Logger(label: "cairn.database-server") { RecordingLogHandler(label: $0, lines: lines) }
        configuration.logger.logLevel = .debug
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let secret = "secret-token-\(UUID().uuidString)"
        _ = try await WebSocketClient.connect(port: port, namespace: "logged") { frames, writer -> Bool in
            _ = try await frames.next()
            try await writer.send(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"\#(secret)"}}}"#)
            _ = try await frames.next()
            try await writer.send(#"{"t":"d","d":{"r":2,"a":"p","b":{"p":"scores/ada","d":"\#(secret)"}}}"#)
            _ = try await frames.next()
            return true
        }
        _ = try await ServerRESTTests.request("GET", port, "/scores.json?ns=logged&auth=\(secret)")
        try await waitUntil { lines.all.contains { $0.contains("closed") && $0.contains("connection") && !$0.contains("REST") } }
        await server.stop()
        let logged = lines.all
        #expect(logged.allSatisfy { $0.hasPrefix("cairn.database-server ") })
        #expect(logged.contains { $0.contains("debug") && $0.contains("opened, namespace logged") })
        #expect(logged.contains { $0.contains("debug") && $0.contains("request 1 auth") })
        #expect(logged.contains { $0.contains("debug") && $0.contains("request 2 p /scores/ada") })
        #expect(logged.contains { $0.contains("debug") && $0.contains("REST GET /scores.json (namespace logged)") })
        #expect(!logged.contains { $0.contains(secret) }, "a token or data reached the log")
    }
}
