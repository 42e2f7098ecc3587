import CairnDatabase
import CairnTestSupport
import Foundation
import Testing

/// `cairn database-emulator --data DIR` as a child process: what it acknowledged survives its SIGKILL.
@Suite("Realtime Database end to end: the local server's --data durability")
struct ServerDurabilityEndToEndTests {
    /// A database of its own app pointed at `port` (as an emulator: `owner`), callbacks on a private queue.
    static func makeClient(port: Int, namespace: String) -> Database {
        let name = "durability-app-" + UUID().uuidString.prefix(8).lowercased()
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "https://\(namespace).firebaseio.com"
        FirebaseApp.configure(name: name, options: options)
        let database = Database.database(app: FirebaseApp.app(name: name)!)
        database.callbackQueue = DispatchQueue(label: "durability.callbacks." + name)
        database.useEmulator(withHost: "127.0.0.1", port: port)
        return database
    }

    @Test("Writes the server acknowledged are there after it is SIGKILLed and restarted on the same directory")
    func acknowledgedWritesSurviveSIGKILL() async throws {
        try await ExclusiveTestSection.realtimeDatabaseConnections.run {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-rtdb-kill-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let namespace = "kill-" + UUID().uuidString.prefix(8).lowercased()

            let first = try EmulatorProcess(["--data", directory])
            let firstPort = try #require(await first.waitForPort(), "\(first)")
            let writer = Self.makeClient(port: firstPort, namespace: namespace)
            defer { writer.goOffline() }
            _ = try await writer.reference(withPath: "orders/o1").setValue(["item": "tea", "count": 2])
            _ = try await writer.reference(withPath: "orders").updateChildValues(["o2/item": "cake", "o1/count": 3])
            _ = try await writer.reference(withPath: "stamp").setValue(ServerValue.timestamp())
            await first.killAndWait()

            let second = try EmulatorProcess(["--data", directory])
            let secondPort = try #require(await second.waitForPort(), "\(second)")
            let reader = Self.makeClient(port: secondPort, namespace: namespace)
            defer { reader.goOffline() }
            let orders = try await reader.reference(withPath: "orders").getData()
            let stored = try #require(orders.value as? [String: Any], "\(second)")
            #expect((stored["o1"] as? [String: Any])?["item"] as? String == "tea")
            #expect((stored["o1"] as? [String: Any])?["count"] as? Int == 3)
            #expect((stored["o2"] as? [String: Any])?["item"] as? String == "cake")
            let stamp = try await reader.reference(withPath: "stamp").getData()
            #expect((stamp.value as? NSNumber).map { $0.int64Value > 1_600_000_000_000 } == true)
            await second.killAndWait()
        }
    }
}
