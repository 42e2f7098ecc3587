import CairnCore
import Cairn
import CairnModel
import Testing

@testable import CairnGRPC

/// How the gRPC datastore turns a Firestore instance's settings (host, TLS) into the gRPC connection settings.
@Suite("GRPCDatastore: settings to connection")
struct GRPCDatastoreSettingsTests {
    let database = DatabaseID(projectID: "demo")

    func connection(_ host: String, ssl: Bool) throws -> FirestoreRPCConfiguration {
        try GRPCDatastore.rpcConfiguration(
            databaseID: database, host: host, isSSLEnabled: ssl, authTokenProvider: { _ in "token" }
        ).get()
    }

    @Test("useEmulator's host:port without TLS is the emulator: plaintext and the owner token")
    func emulatorHost() async throws {
        let configuration = try connection("127.0.0.1:8085", ssl: false)
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8085 && !configuration.usesTLS)
        #expect(try await configuration.authTokenProvider?(false) == "owner")
        #expect(configuration.databaseID == database)
    }

    @Test("a TLS host without a port is port 443 with the provider's token; an IPv6 literal keeps its colons")
    func productionAndIPv6() async throws {
        let production = try connection("firestore.googleapis.com", ssl: true)
        #expect(production.host == "firestore.googleapis.com" && production.port == 443 && production.usesTLS)
        #expect(try await production.authTokenProvider?(false) == "token")
        let v6 = try connection("[::1]:9000", ssl: false)
        #expect(v6.host == "::1" && v6.port == 9000)
    }

    @Test("a host with a malformed port is an invalidArgument error naming the host")
    func malformedPort() {
        for host in ["localhost:http", "localhost:0", "localhost:70000", ":8080"] {
            let result = GRPCDatastore.rpcConfiguration(
                databaseID: database, host: host, isSSLEnabled: false, authTokenProvider: nil)
            guard case .failure(let error) = result else {
                Issue.record("\(host) was accepted")
                continue
            }
            #expect(error.code == .invalidArgument && error.message.contains(host))
        }
    }
}
