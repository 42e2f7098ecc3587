import CairnDatabase
import CairnDatabaseCore
import CairnDatabaseServer
import CairnTestSupport
import Foundation
import Synchronization

/// The local server on a free loopback port, and clients of one namespace connected to it as to an emulator.
final class ServerFixture: @unchecked Sendable {
    let namespace = "e2e-" + UUID().uuidString.prefix(8).lowercased()
    private(set) var server: DatabaseServer
    private(set) var port = 0
    /// The clients ``makeClient(token:)`` made, taken offline by ``withServer(_:)`` at the end.
    private let clients = Mutex<[Database]>([])

    init() { server = DatabaseServer(configuration: Self.configuration(port: 0)) }

    /// The server's idle timeout is long here: these tests are not about it, and on a loaded machine an event loop
    /// that stalls past the 90 s default closes connections whose keepalives it has not read yet.
    private static func configuration(port: Int) -> DatabaseServerConfiguration {
        var configuration = DatabaseServerConfiguration()
        configuration.port = port
        configuration.idleTimeout = .seconds(600)
        return configuration
    }

    func start() async throws {
        port = try await server.start()
    }

    func stop() async { await server.stop() }

    /// Runs `body` with a started server, in ``ExclusiveTestSection/realtimeDatabaseConnections``; afterwards every
    /// client made by ``makeClient(token:)`` goes offline and the server stops, also when `body` throws.
    static func withServer(_ body: (ServerFixture) async throws -> Void) async throws {
        try await ExclusiveTestSection.realtimeDatabaseConnections.run {
            let fixture = ServerFixture()
            try await fixture.start()
            do {
                try await body(fixture)
            } catch {
                await fixture.tearDown()
                throw error
            }
            await fixture.tearDown()
        }
    }

    private func tearDown() async {
        for client in clients.withLock({ $0 }) { client.goOffline() }
        await stop()
    }

    /// A new server on the same port (in memory: it starts empty).
    func restart() async throws {
        server = DatabaseServer(configuration: Self.configuration(port: port))
        port = try await server.start()
    }

    /// A database of its own app, pointed at the server with `useEmulator`, callbacks on a private queue; with a
    /// token provider it connects as that user instead of `owner`.
    func makeClient(token: String? = nil) -> Database {
        let name = "e2e-app-" + UUID().uuidString.prefix(8).lowercased()
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "https://\(namespace).firebaseio.com"
        FirebaseApp.configure(name: name, options: options)
        let database = Database.database(app: FirebaseApp.app(name: name)!)
        database.callbackQueue = DispatchQueue(label: "e2e.callbacks." + name)
        database.useEmulator(withHost: "127.0.0.1", port: port)
        if let token { database.authTokenProvider = { token } }
        clients.withLock { $0.append(database) }
        return database
    }

    /// Sets `path` to `value` on the server as its administrator; every listener gets it pushed.
    func write(_ path: String, _ value: JSONValue) throws {
        try server.core.write(.set(DatabasePath(unvalidated: path), Node(json: value)), namespace: namespace)
    }

    /// The server's data at `path`, as JSON.
    func serverValue(_ path: String) -> JSONValue {
        server.core.read(namespace: namespace, path: DatabasePath(unvalidated: path)).exportJSON()
    }
}

/// The values a `value` observer saw, in order.
final class ValueLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    func add(_ value: Any?) {
        let text: String
        switch value {
        case nil, is NSNull: text = "null"
        case let string as String: text = string
        case let number as NSNumber: text = number.stringValue
        default: text = "\(value!)"
        }
        lock.withLock { stored.append(text) }
    }

    var values: [String] { lock.withLock { stored } }
    var last: String? { values.last }
}

/// Waits (suspending, not blocking) up to `seconds` for `condition`.
func eventually(seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return true
}
