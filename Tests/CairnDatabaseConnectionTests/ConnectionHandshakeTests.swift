@testable import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Persistent connection: endpoint and handshake")
struct ConnectionHandshakeTests {
    @Test("The hello connects with the server time offset; the next connection dials the hello's host with the session as ls")
    func helloConnectsAndCachesHostAndSession() {
        let harness = ConnectionHarness()
        harness.connect(hello: false)
        #expect(harness.socket.address.description == "wss://demo.example.test/.ws?v=5&ns=demo")
        #expect(harness.delegate.entries.isEmpty)

        // The manual clock starts at 1,000 s: a server 2.5 s ahead.
        harness.socket.hello(timestamp: 1_002_500, host: "s-usc1.example.test", session: "abc")
        harness.settle()
        #expect(harness.delegate.entries == ["connected"])
        #expect(harness.delegate.offsets == [2_500])

        harness.socket.drop()
        harness.settle()
        #expect(harness.delegate.entries == ["connected", "disconnected"])
        harness.clock.advance(by: 1)
        harness.settle()
        #expect(harness.transports.count == 2)
        #expect(harness.socket.address.description == "wss://s-usc1.example.test/.ws?v=5&ns=demo&ls=abc")
    }

    @Test("A host named by a hello that then does not answer is forgotten: the next attempt dials the configured host")
    func unreachableCachedHostFallsBack() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.socket.drop()
        harness.settle()
        harness.clock.advance(by: 1)
        harness.settle()
        #expect(harness.socket.address.host == "server-1.example.test")
        harness.socket.drop("connection refused")
        harness.settle()
        harness.clock.advance(by: 2)
        harness.settle()
        #expect(harness.transports.count == 3)
        #expect(harness.socket.address.host == "demo.example.test")
    }

    @Test("FIREBASE_DATABASE_EMULATOR_HOST: ws:// to that host with the URL's namespace; the hello's host is not cached; auth is owner without a provider")
    func emulatorEndpoint() throws {
        let url = try DatabaseURL("https://demo-ns.firebaseio.com")
        let endpoint = DatabaseEndpoint(url: url, environment: ["FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:9000"])
        #expect(endpoint == DatabaseEndpoint(host: "127.0.0.1:9000", namespace: "demo-ns", secure: false, isEmulator: true))

        let harness = ConnectionHarness(endpoint: endpoint)
        harness.connect()
        #expect(harness.socket.address.description == "ws://127.0.0.1:9000/.ws?v=5&ns=demo-ns")
        #expect(harness.socket.actions == [WireAction.stats, WireAction.auth])
        #expect(harness.socket.request(WireAction.auth)?.body == .parse(#"{"cred":"owner"}"#))

        harness.socket.drop()
        harness.settle()
        harness.clock.advance(by: 1)
        harness.settle()
        #expect(harness.socket.address.description == "ws://127.0.0.1:9000/.ws?v=5&ns=demo-ns&ls=session-1")
    }

    @Test("A token provider set for an emulator chooses the identity instead of owner")
    func emulatorWithProvider() async throws {
        let endpoint = DatabaseEndpoint(host: "127.0.0.1:9000", namespace: "demo", secure: false, isEmulator: true)
        let harness = ConnectionHarness(endpoint: endpoint, tokenProvider: { "user-token" })
        harness.connect(hello: false)
        try #require(await harness.wait { harness.transports.count == 1 })
        harness.socket.hello()
        harness.settle()
        #expect(harness.socket.request(WireAction.auth)?.body == .parse(#"{"cred":"user-token"}"#))
    }

    @Test("useEmulator wins over the environment; without either the URL's host, namespace and TLS are used")
    func endpointFromURL() throws {
        var url = try DatabaseURL("http://localhost:9000?ns=other")
        #expect(DatabaseEndpoint(url: url, environment: [:]) == DatabaseEndpoint(host: "localhost:9000", namespace: "other", secure: false, isEmulator: false))
        url.emulatorHost = "10.0.0.2:9001"
        #expect(DatabaseEndpoint(url: url, environment: ["FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:9000"]).host == "10.0.0.2:9001")
        let production = DatabaseEndpoint(url: try DatabaseURL("https://my-db.europe-west1.firebasedatabase.app"), environment: [:])
        #expect(production.webSocketURL(host: production.host, lastSessionID: nil)?.description
            == "wss://my-db.europe-west1.firebasedatabase.app/.ws?v=5&ns=my-db")
    }

    @Test("A WebSocket address takes host, port and IPv6 apart and refuses what is not a host")
    func addresses() {
        let v6 = WebSocketAddress(secure: false, authority: "[::1]:9000", target: "/.ws")
        #expect(v6?.host == "::1")
        #expect(v6?.port == 9000)
        #expect(v6?.hostHeader == "[::1]:9000")
        #expect(WebSocketAddress(secure: true, authority: "db.example.test", target: "/.ws")?.port == 443)
        #expect(WebSocketAddress(secure: false, authority: "host:0", target: "/") == nil)
        #expect(WebSocketAddress(secure: false, authority: "host:99999", target: "/") == nil)
        #expect(WebSocketAddress(secure: false, authority: "", target: "/") == nil)
        #expect(WebSocketAddress(secure: false, authority: "evil/host?x", target: "/") == nil)
    }

    @Test("No hello within 30 s: the socket is closed and the next attempt is scheduled")
    func connectTimeout() {
        let harness = ConnectionHarness()
        harness.connect(hello: false)
        harness.clock.advance(by: 29)
        harness.settle()
        #expect(!harness.socket.isClosed)
        harness.clock.advance(by: 1)
        harness.settle()
        #expect(harness.socket.isClosed)
        #expect(harness.clock.pendingDelays == [1])
        #expect(harness.delegate.entries.isEmpty)
    }

    @Test("A malformed message or hello closes the socket; the connection retries")
    func malformedMessagesClose() {
        let harness = ConnectionHarness()
        harness.connect(hello: false)
        harness.socket.receiveFrame("{not json")
        harness.settle()
        #expect(harness.socket.isClosed)
        harness.clock.advance(by: 1)
        harness.settle()
        harness.socket.control(WireControl.hello, .parse(#"{"ts":"soon"}"#))
        harness.settle()
        #expect(harness.transports[1].isClosed)
        #expect(harness.delegate.entries.isEmpty)
    }
}
