import ArgumentParser
import CairnDatabaseServer
import CairnTestSupport
import Foundation
import Logging

/// `cairn database-emulator`: the local Realtime Database server (``DatabaseServer``) in the foreground, for
/// development and tests: Firebase's v5 WebSocket protocol at `/.ws` and the REST API, one database per namespace,
/// in memory or (`--data DIR`) on a SegmentLog. Runs until interrupted.
///
///     cairn database-emulator --port 9000 --data /tmp/rtdb
///     FIREBASE_DATABASE_EMULATOR_HOST=127.0.0.1:9000 python3 app.py     # firebase-admin, unchanged
struct DatabaseEmulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database-emulator",
        abstract: "Run a local Realtime Database server (v5 WebSocket and REST) until interrupted.",
        discussion: """
            Serves Firebase's Realtime Database protocol (WebSocket at ws://HOST:PORT/.ws?v=5&ns=NAMESPACE) and \
            its REST API (http://HOST:PORT/<path>.json?ns=NAMESPACE), one database per namespace, in memory or \
            kept in DIR (--data: a SegmentLog, replayed and compacted at start). Point \
            Cairn's client at it with useEmulator(withHost:port:), and Firebase's Admin SDKs with \
            FIREBASE_DATABASE_EMULATOR_HOST=HOST:PORT. Any token is accepted; `owner` is an administrator.
            --rules FILE holds clients (not the administrator) to .read/.write rules per path with $wildcards and \
            the conditions true, false, auth != null, auth.uid == $name, auth.uid == 'uid' (access cascades, as \
            in Firebase). Prints one line with the URL when ready. Not implemented: the rest of the rules \
            language, consistency across processes.

            Example:
              cairn database-emulator --port 9000 --verbose
            """)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed when ready).")
    var port = 9000

    @Option(help: "A directory that keeps the data across restarts (created when missing; one server at a time).")
    var data: String?

    @Option(help: "A rules file: {\"rules\": {...}} with .read/.write as true, false, auth != null, auth.uid == $name or auth.uid == 'uid'.")
    var rules: String?

    @Flag(help: "Log each connection and request on standard error (never tokens or data); otherwise only failures.")
    var verbose = false

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535, got \(port)")
        }
    }

    func run() throws {
        var configuration = DatabaseServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.dataDirectory = data
        configuration.rulesFile = rules
        configuration.logger = Logger(label: "cairn.database-server") { StreamLogHandler.standardError(label: $0) }
        configuration.logger.logLevel = verbose ? .debug : .notice
        let server = DatabaseServer(configuration: configuration)
        let host = self.host
        let bound = try runBlocking { try await server.start() }
        print("Realtime Database server ready: http://\(host):\(bound) (WebSocket ws://\(host):\(bound)/.ws?v=5&ns=NAMESPACE)")
        fflush(nil)
        let stop = DispatchSemaphore(value: 0)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler { stop.signal() }
            source.resume()
        }
        stop.wait()
        try runBlocking { await server.stop() }
    }
}
