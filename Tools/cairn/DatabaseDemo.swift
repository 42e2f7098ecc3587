import CairnDatabaseCore
import CairnDatabaseServer
import Foundation
import Logging
import Synchronization

/// The Realtime Database part of `cairn demo`: the local server (``DatabaseServer``) in this process on a free
/// loopback port, and the app in a `cairn database-demo-client` process (``DatabaseDemoClientCommand``) with
/// persistence on in `directory`. Presence (`onDisconnectSetValue` on `.info/connected`), writes made offline
/// with `ServerValue.timestamp()`, a restart that is a SIGKILL and a new process on the same cache directory, the
/// restored writes reaching the server in order with their timestamps resolved, and the presence entry set to
/// "offline" by the server when the process is killed. Every claim is checked against the server's own state
/// (its core, not a client) and the order in which its WebSocket sessions received requests; a failed check throws
/// ``DatabaseDemoFailure``.
///
/// ```swift
/// try await DatabaseDemo.run(directory: cache) { print($0) }
/// ```
enum DatabaseDemo {
    static let presenceID = "ada"

    static func run(directory: URL, say: @escaping (String) -> Void) async throws {
        let started = ContinuousClock.now
        let namespace = "demo-cairn-\(getpid())"
        let received = RequestLog()
        var configuration = DatabaseServerConfiguration()
        configuration.logger = Logger(label: "cairn.database-server") { _ in
            RequestLogHandler { line in
                if let request = line.range(of: " ← request ") { received.append(String(line[request.upperBound...])) }
            }
        }
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let state = ServerState(server: server, namespace: namespace, received: received)
        var clients: [DatabaseDemoProcess] = []
        do {
            say("Realtime Database: the local server (CairnDatabaseServer) on 127.0.0.1:\(port), namespace \(namespace);"
                + " the app is a `cairn database-demo-client` process, persistence on in \(directory.path)")
            let arguments = [directory.path, "--emulator", "127.0.0.1:\(port)", "--ns", namespace, "--id", presenceID]
            try await story(state, arguments: arguments, clients: &clients, say: say)
        } catch {
            for client in clients { client.killNow() }
            await server.stop()
            throw error
        }
        await server.stop()
        let elapsed = ContinuousClock.now - started
        say("Realtime Database: every check passed against the server's state, in "
            + String(format: "%.1f s", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
    }

    private static func story(_ server: ServerState, arguments: [String], clients: inout [DatabaseDemoProcess],
                              say: @escaping (String) -> Void) async throws {
        let status = "status/\(presenceID)"
        let first = try DatabaseDemoProcess(["first"] + arguments)
        clients.append(first)
        say("1. client process 1 (pid \(first.pid)) connects; on .info/connected == true it sets up presence on \(status)")
        _ = try await first.waitFor("@online", say: say)
        try check(server.value(status) == .string("online"), "the server has \(status) = \(server.value(status)), not \"online\"")
        say("   the server: \(status) = \"online\"")

        say("2. goOffline(), then \(DatabaseDemoClientCommand.writes.count) writes with ServerValue.timestamp():"
            + " setValue on messages/m1, m2, m3 and updateChildValues on rooms/lobby; the listeners show each at once")
        try first.send("offline")
        _ = try await first.waitFor("@written", say: say)
        try check(server.value("messages") == .null && server.value("rooms") == .null,
                  "the server has messages \(server.value("messages")) and rooms \(server.value("rooms")) while the client is offline")
        say("   the server: messages and rooms are empty (nothing was sent)")
        let wentOffline = await server.eventually { server.value(status) == .string("offline") }
        try check(wentOffline, "\(status) is \(server.value(status)) on the server after the client went offline")
        say("   the server: \(status) = \"offline\" (the client's socket closed, so the server ran its onDisconnect)")

        say("3. restart: SIGKILL client process 1 (its writes were never acknowledged); client process 2 opens the same"
            + " cache directory, offline first")
        try await first.killHard()
        let second = try DatabaseDemoProcess(["restart"] + arguments)
        clients.append(second)
        let restored = try await second.waitFor("@restored", say: say)
        let messages = DatabaseDemoClientCommand.writes.filter { !$0.merge }.count
        try check(restored == "@restored \(messages)", "the restarted client shows \(restored.dropFirst(10)) messages, not \(messages)")
        try check(server.value("messages") == .null, "the server has messages before the restarted client went online")
        say("   the \(messages) messages and the room came back from disk; the server still has none of them")

        say("4. goOnline() in client process 2: the restored writes are sent again")
        let online = Int64(Date().timeIntervalSince1970 * 1000)
        try second.send("online")
        _ = try await second.waitFor("@online", say: say)
        let lastRoom = DatabaseDemoClientCommand.writes.last(where: \.merge)?.text ?? ""
        let arrived = await server.eventually {
            server.value("messages").objectValue?.count == messages && server.value("rooms/lobby/lastMessage") == .string(lastRoom)
        }
        try check(arrived, "the restored writes did not reach the server: messages \(server.value("messages")), rooms \(server.value("rooms"))")
        try checkOrder(server, say: say)
        try checkTimestamps(server, after: online, say: say)
        try check(server.value(status) == .string("online"), "\(status) is \(server.value(status)) after the reconnect")
        say("   the server: \(status) = \"online\" again")

        say("5. SIGKILL client process 2 while it is online")
        try await second.killHard()
        second.showRest(say: say)
        let killedOffline = await server.eventually { server.value(status) == .string("offline") }
        try check(killedOffline, "\(status) is \(server.value(status)) on the server after the client was killed")
        say("   the server saw the socket close and ran the onDisconnect: \(status) = \"offline\"")
    }

    /// The restored writes' requests, in the order the server received them, equal the order they were made in.
    private static func checkOrder(_ server: ServerState, say: (String) -> Void) throws {
        let expected = DatabaseDemoClientCommand.writes.map { "\($0.action) /\($0.path)" }
        let paths = Set(DatabaseDemoClientCommand.writes.map { "/" + $0.path })
        let received = server.received.lines.compactMap { request -> String? in
            let parts = request.split(separator: " ")
            guard parts.count == 3, ["p", "m"].contains(parts[1]) else { return nil }
            let path = "/" + parts[2].drop { $0 == "/" }
            return paths.contains(path) ? "\(parts[1]) \(path)" : nil
        }
        try check(received == expected, "the server received \(received), expected \(expected) once each, in order")
        say("   the server received, in write order: " + received.joined(separator: ", "))
    }

    /// Every `.sv` timestamp is a number the server resolved after the client went online, non-decreasing in write
    /// order (m1, m2, m3, then the room's last update); the room holds the last merge.
    private static func checkTimestamps(_ server: ServerState, after online: Int64, say: (String) -> Void) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var previous = online
        var resolved: [String] = []
        let stamped = DatabaseDemoClientCommand.writes.filter { !$0.merge }.map { ($0.path + "/at", $0.path) }
            + [("rooms/lobby/updatedAt", "rooms/lobby")]
        for (path, label) in stamped {
            guard case .int(let at) = server.value(path) else {
                throw failure("\(path) is \(server.value(path)) on the server, not a number it resolved")
            }
            try check(at >= previous && at <= now, "\(path) = \(at) is not between \(previous) and \(now)")
            previous = at
            resolved.append("\(label.split(separator: "/").last!) \(at)")
        }
        let room = server.value("rooms/lobby")
        let count = DatabaseDemoClientCommand.writes.filter { !$0.merge }.count
        try check(room.objectValue?["count"] == .int(Int64(count)), "rooms/lobby is \(room): the last merge did not win")
        say("   the server's timestamps, resolved on arrival, in write order: " + resolved.joined(separator: ", "))
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw failure(message()) }
    }

    private static func failure(_ message: String) -> DatabaseDemoFailure { DatabaseDemoFailure("check failed: \(message)") }

    /// What the demo reads from the server: its data (through its core) and the requests its sessions received.
    private struct ServerState: Sendable {
        let server: DatabaseServer
        let namespace: String
        let received: RequestLog

        func value(_ path: String) -> JSONValue {
            server.core.read(namespace: namespace, path: DatabasePath(unvalidated: path)).exportJSON()
        }

        /// Polls `condition` until it holds (true) or the hang guard passes (false).
        func eventually(_ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + DatabaseDemoProcess.hangGuard
            while ContinuousClock.now < deadline {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition()
        }
    }

    /// `<number> <action> /<path>` of every request the server's WebSocket sessions received, in that order (from
    /// the server's log lines, which never hold a request's body).
    private final class RequestLog: Sendable {
        private let stored = Mutex<[String]>([])

        func append(_ request: String) { stored.withLock { $0.append(request) } }
        var lines: [String] { stored.withLock { $0 } }
    }
}

/// Hands every line the server logs, at debug level and up, to `sink`: the demo reads the requests the server's
/// sessions received from them (`<connection> ← request <n> <action> /<path>`, never a body or a token).
private struct RequestLogHandler: LogHandler {
    let sink: @Sendable (String) -> Void
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        sink(message.description)
    }
}
