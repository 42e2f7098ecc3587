import CairnCore
import Cairn
import CairnModel
import Testing

@testable import CairnGRPC

@Suite("Client configuration")
struct ConfigurationTests {
    let database = DatabaseID(projectID: "demo")

    @Test("production is TLS to firestore.googleapis.com:443; the emulator is plaintext with the token owner")
    func presets() async throws {
        let production = FirestoreRPCConfiguration.production(databaseID: database) { _ in "id-token" }
        #expect(production.host == "firestore.googleapis.com")
        #expect(production.port == 443)
        #expect(production.usesTLS)
        #expect(try await production.authTokenProvider?(false) == "id-token")
        let emulator = FirestoreRPCConfiguration.emulator(databaseID: database, host: "10.0.0.2", port: 9000)
        #expect(!emulator.usesTLS)
        #expect(try await emulator.authTokenProvider?(false) == "owner")
    }

    @Test("FIRESTORE_EMULATOR_HOST switches to the emulator; unset leaves the configuration alone")
    func emulatorEnvironment() throws {
        let production = FirestoreRPCConfiguration.production(databaseID: database)
        let switched = try production.applyingEmulatorEnvironment(["FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080"])
        #expect(switched.host == "127.0.0.1")
        #expect(switched.port == 8080)
        #expect(!switched.usesTLS)
        let ipv6 = try production.applyingEmulatorEnvironment(["FIRESTORE_EMULATOR_HOST": "[::1]:8081"])
        #expect(ipv6.host == "::1")
        #expect(ipv6.port == 8081)
        #expect(try production.applyingEmulatorEnvironment([:]).usesTLS)
    }

    @Test("a malformed FIRESTORE_EMULATOR_HOST is an invalidArgument error naming the expected form")
    func malformedEmulatorHost() {
        for value in ["localhost", "host:", ":8080", "host:99999", "host:port"] {
            expectFirestoreError(.invalidArgument, containing: "host:port", "\(value)") {
                try FirestoreRPCConfiguration.production(databaseID: database)
                    .applyingEmulatorEnvironment(["FIRESTORE_EMULATOR_HOST": value])
            }
        }
    }

    @Test("the routing header keeps slashes and unreserved characters and percent-encodes the rest")
    func routingHeader() {
        #expect(FirestoreRPC.routingValue("projects/p-1/databases/(default)") == "projects/p-1/databases/%28default%29")
    }
}
