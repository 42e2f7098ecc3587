import Foundation
import Logging

/// How a ``DatabaseServer`` listens and what it bounds.
///
/// ```swift
/// var configuration = DatabaseServerConfiguration()
/// configuration.port = 9000                    // 0 (the default): any free port, reported by start()
/// configuration.logger.logLevel = .debug      // one line per connection and request
/// ```
package struct DatabaseServerConfiguration: Sendable {
    package var host = "127.0.0.1"
    /// 0 picks a free port.
    package var port = 0
    /// The namespace of a request without `ns=` whose host names none (an IP address or `localhost`).
    package var defaultNamespace = "default"
    /// A WebSocket that sends nothing for this long is closed and its onDisconnects run (clients send the
    /// keepalive `0` after 45 s of silence).
    package var idleTimeout: Duration = .seconds(90)
    /// An event stream gets a `keep-alive` event after this long without events.
    package var keepAliveInterval: Duration = .seconds(30)
    /// The largest message a client may send, after frame reassembly, and the largest REST body (bytes).
    package var maxMessageBytes = 16 * 1024 * 1024
    /// How many messages may wait for a slow connection before it is closed.
    package var maxQueuedMessages = 100_000
    /// A directory whose SegmentLog keeps the data across restarts (created when missing); nil keeps it in memory.
    package var dataDirectory: String?
    /// A rules file (``ServerRules``: `.read`/`.write` by `auth != null` or a uid); nil allows everything.
    package var rulesFile: String?
    /// Where the server logs (label `cairn.database-server`): each connection and request at debug level,
    /// failures at error level. Never a token, never data.
    package var logger = Logger(label: "cairn.database-server")
    /// Milliseconds since 1970 for `.sv` timestamps (injectable for tests).
    package var clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

    package init() {}
}
