// The online database workloads' moving parts: the local server in this process on a free loopback port, and
// Realtime Database clients of their own apps pointed at it with `useEmulator`, as an app would use them.

import CairnDatabase
import CairnDatabaseCore
import CairnDatabaseServer
import CairnTestSupport
import Foundation

/// The local Realtime Database server (``DatabaseServer``) on a free loopback port, started and stopped from
/// synchronous code, with one namespace for the suite.
final class BenchDatabaseServer: Sendable {
    let server: DatabaseServer
    let port: Int
    let namespace = "bench-online"

    init() throws {
        var configuration = DatabaseServerConfiguration()
        // Nothing here is about idle connections; a loaded machine must not close one that is still measured.
        configuration.idleTimeout = .seconds(3600)
        let server = DatabaseServer(configuration: configuration)
        self.server = server
        port = try runBlocking { try await server.start() }
    }

    func stop() { try? runBlocking { await self.server.stop() } }

    /// Sets `path` to `node` as the administrator, through the server's core (no client, no wire).
    func fill(_ path: DatabasePath, with node: Node) throws {
        try server.core.write(.set(path, node), namespace: namespace)
    }

    /// The bytes of the server's data at the root as JSON text.
    func jsonBytes() throws -> Int {
        try JSONEncoder().encode(server.core.read(namespace: namespace, path: .root).exportJSON()).count
    }

    /// A database of a new app pointed at this server; callbacks on a private queue; persistence on in
    /// `persistenceDirectory` when given. The caller deletes the app (``BenchDatabaseClient/close()``).
    func client(persistenceDirectory: String? = nil) -> BenchDatabaseClient {
        let name = "bench-online-" + UUID().uuidString.prefix(8).lowercased()
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "https://\(namespace).firebaseio.com"
        FirebaseApp.configure(name: name, options: options)
        let app = FirebaseApp.app(name: name)!
        let database = Database.database(app: app)
        database.callbackQueue = DispatchQueue(label: "bench.online." + name)
        database.useEmulator(withHost: "127.0.0.1", port: port)
        if let persistenceDirectory {
            database.isPersistenceEnabled = true
            database.usePersistenceDirectory(persistenceDirectory)
        }
        return BenchDatabaseClient(app: app, database: database)
    }
}

/// One client of the suite.
struct BenchDatabaseClient {
    let app: FirebaseApp
    let database: Database

    /// Waits until `.info/connected` is true (the handshake with the server is done).
    func waitUntilConnected() throws {
        let connected = DispatchSemaphore(value: 0)
        let reference = database.reference(withPath: ".info/connected")
        let handle = reference.observe(.value) { snapshot in
            if snapshot.value as? Bool == true { connected.signal() }
        }
        defer { reference.removeObserver(withHandle: handle) }
        guard connected.wait(timeout: .now() + 60) == .success else {
            throw BenchError("a client did not connect to the local server within 60 s")
        }
    }

    /// Takes the client offline and deletes its app (which closes its cache).
    func close() {
        database.goOffline()
        let deleted = DispatchSemaphore(value: 0)
        app.delete { _ in deleted.signal() }
        _ = deleted.wait(timeout: .now() + 60)
    }
}
