import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Foundation
import GRPCNIOTransportHTTP2
import Testing

@testable import CairnGRPC

/// Whether the TLS proxy tests run: they need nginx and openssl (besides the emulator). Without them the suite is
/// skipped with one line; under `CI=true` it runs anyway and fails naming what is missing.
enum TLSProxyGate {
    static let shouldRun = NginxTLSProxy.missingReason == nil || FirestoreEmulator.isCI

    static let skipReason = Comment(
        rawValue: "TLS proxy tests skipped: \(NginxTLSProxy.missingReason ?? "nginx and openssl are available"); "
            + "set CI=true to make this a failure")
}

extension EmulatorTests {
    /// TLS end to end: Debian's nginx terminates TLS (certificates from a CA made at test time with openssl) and
    /// passes gRPC to the official emulator; the client connects as to production (`host` + `isSSLEnabled`, a
    /// bearer token from `authTokenProvider`), trusting the CA through `tlsTrustRoots`, or not.
    @Suite(
        "TLS through an nginx proxy", .serialized,
        .enabled(if: TLSProxyGate.shouldRun, TLSProxyGate.skipReason))
    struct EndToEndTLSProxyTests {
        /// A Firestore instance of `project` on the proxy's `port`, over TLS with `trustRoots`, sending the
        /// emulator's `owner` token as its bearer token (the token a production app gets from its provider).
        static func tlsClient(project: String, port: Int, trustRoots: TLSTrustRoots) -> Firestore {
            let name = "\(project)-\(UUID().uuidString.lowercased())"
            FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
            let db = Firestore.firestore(app: FirebaseApp.app(name: name)!)
            let settings = db.settings
            settings.host = "127.0.0.1:\(port)"
            settings.isSSLEnabled = true
            settings.tlsTrustRoots = trustRoots
            settings.authTokenProvider = { "owner" }
            settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
            settings.dispatchQueue = DispatchQueue(label: name)
            db.settings = settings
            return db
        }

        /// The error of a server-side count (RunAggregationQuery, one call, no retry) through `db`.
        static func countFailure(_ db: Firestore) async throws -> FirestoreErrorCode {
            let outcome = try await withHangGuard("a count over TLS") { () -> Result<Int, FirestoreErrorCode> in
                do {
                    let snapshot = try await db.collection("notes").count.getAggregation(source: .server)
                    return .success(snapshot.count.intValue)
                } catch let error as FirestoreErrorCode {
                    return .failure(error)
                }
            }
            guard case .failure(let error) = outcome else {
                Issue.record("the count succeeded over a connection that should not verify: \(outcome)")
                throw FirestoreErrorCode(.internal, "the count succeeded")
            }
            return error
        }

        @Test("a client trusting the proxy's CA syncs over TLS: its write reaches the emulator, its listener sees the server's data")
        func syncsThroughTheProxy() async throws {
            let project = "cairn-e2e-tls-sync"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let proxy = try await NginxTLSProxy.start(upstreamPort: emulator.port)
            defer { proxy.stop() }
            _ = try await rpc.commit([
                .set(try DocumentKey(parsing: "notes/server"), value: ObjectValue(["v": .string("from the server")]))
            ])

            let db = Self.tlsClient(
                project: project, port: proxy.port, trustRoots: .pemFile(proxy.authority.certificatePath))
            let log = DocumentLog()
            log.listen(to: db.document("notes/server"))
            try await log.wait(for: "the server's document, from the server") {
                $0.value == "from the server" && !$0.isFromCache
            }
            let outcomes = WriteOutcomes()
            db.document("notes/client").setData(["v": "from the client"], completion: outcomes.completion("client"))
            #expect(try await outcomes.wait(for: "client") == .acknowledged)
            #expect(try await serverValue(rpc, "notes/client") == "from the client")
            try await db.terminate()

            // The same CA given as PEM bytes.
            let pem = try Data(contentsOf: URL(fileURLWithPath: proxy.authority.certificatePath))
            let bytesClient = Self.tlsClient(project: project, port: proxy.port, trustRoots: .pem(pem))
            let count = try await withHangGuard("a count over TLS with PEM bytes") {
                try await bytesClient.collection("notes").count.getAggregation(source: .server).count.intValue
            }
            #expect(count == 2)
            try await bytesClient.terminate()

            // Every call went through nginx, over HTTP/2 (ALPN h2).
            let access = try String(contentsOf: proxy.directory.appendingPathComponent("access.log"), encoding: .utf8)
            for method in ["Listen", "Write", "RunAggregationQuery"] {
                #expect(access.contains("POST /google.firestore.v1.Firestore/\(method) HTTP/2.0\" 200"), "\(access)")
            }
        }

        @Test("without the proxy's CA (system trust roots) a call fails unavailable, naming the host and the unverified certificate")
        func unknownAuthorityIsUnavailable() async throws {
            let emulator = try await FirestoreEmulator.shared()
            let proxy = try await NginxTLSProxy.start(upstreamPort: emulator.port)
            defer { proxy.stop() }
            let db = Self.tlsClient(project: "cairn-e2e-tls-unknown-ca", port: proxy.port, trustRoots: .system)
            let error = try await Self.countFailure(db)
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.message.contains("TLS handshake with 127.0.0.1:\(proxy.port) failed"), "\(error.message)")
            #expect(error.message.contains("certificate verify failed"), "\(error.message)")
            #expect(error.message.contains("unknown CA"), "\(error.message)")
            try await db.terminate()

            // The raw client reports the same for a lookup.
            let rpc = try FirestoreRPC(
                configuration: FirestoreRPCConfiguration(
                    databaseID: DatabaseID(projectID: "cairn-e2e-tls-unknown-ca"), host: "127.0.0.1",
                    port: proxy.port, usesTLS: true, authTokenProvider: { _ in "owner" }))
            defer { rpc.shutdown() }
            let key = try DocumentKey(parsing: "notes/any")
            do {
                _ = try await withHangGuard("a raw lookup over TLS") { try await rpc.lookup([key]) }
                Issue.record("the lookup succeeded over a connection that should not verify")
            } catch let error as FirestoreErrorCode {
                #expect(error.code == .unavailable && error.message.contains("certificate verify failed"), "\(error)")
            }
        }

        @Test("cairn demo --tls syncs through the proxy with service-account credentials and shows both failures, every check ok, exit status 0")
        func demoCommand() async throws {
            let emulator = try await FirestoreEmulator.shared()
            let run = try await ChildProcess(
                executable: ChildProcess.cairn, arguments: ["demo", "--tls", "--emulator", emulator.hostAndPort]
            ).run()
            #expect(run.status == 0, "\(run)")
            let checks = run.lines.filter { $0.hasPrefix("ok:") || $0.hasPrefix("FAILED:") }
            #expect(checks.count == 4 && checks.allSatisfy { $0.hasPrefix("ok:") }, "\(run)")
            #expect(run.lines.contains { $0.contains("holds both documents") && $0.contains("the TLS client") })
            #expect(run.lines.contains { $0.contains("verified the service account's signed JWT and granted") })
            #expect(run.lines.contains { $0.contains("certificate verify failed") })
            #expect(run.lines.contains { $0.contains("not valid for the host name 127.0.0.1") })
        }

        @Test("a certificate from the trusted CA for another host name fails unavailable, naming the name mismatch")
        func wrongHostNameIsUnavailable() async throws {
            let emulator = try await FirestoreEmulator.shared()
            let proxy = try await NginxTLSProxy.start(upstreamPort: emulator.port)
            defer { proxy.stop() }
            let db = Self.tlsClient(
                project: "cairn-e2e-tls-wrong-name", port: proxy.wrongNamePort,
                trustRoots: .pemFile(proxy.authority.certificatePath))
            let error = try await Self.countFailure(db)
            #expect(error.code == .unavailable, "\(error)")
            #expect(
                error.message.contains("TLS handshake with 127.0.0.1:\(proxy.wrongNamePort) failed"), "\(error.message)")
            #expect(error.message.contains("not valid for the host name 127.0.0.1"), "\(error.message)")
            try await db.terminate()
        }
    }
}

/// The TLS trust-roots setting without a network: its default, its copy, its way to the gRPC configuration, and
/// the errors of roots that cannot be used.
@Suite("TLS trust roots: settings and bad roots")
struct TLSTrustRootsTests {
    let database = DatabaseID(projectID: "demo")

    @Test("tlsTrustRoots defaults to the system's, survives copy() and reaches the TLS configuration, not the emulator's")
    func settingReachesTheConfiguration() throws {
        let settings = FirestoreSettings()
        #expect(settings.tlsTrustRoots == .system)
        settings.tlsTrustRoots = .pemFile("proxy-ca.pem")
        #expect(settings.copy().tlsTrustRoots == .pemFile("proxy-ca.pem"))
        let tls = try GRPCDatastore.rpcConfiguration(
            databaseID: database, host: "proxy.internal:8443", isSSLEnabled: true, authTokenProvider: nil,
            trustRoots: .pemFile("proxy-ca.pem")
        ).get()
        #expect(tls.usesTLS && tls.trustRoots == .pemFile("proxy-ca.pem") && tls.port == 8443)
        let emulator = try GRPCDatastore.rpcConfiguration(
            databaseID: database, host: "127.0.0.1:8080", isSSLEnabled: false, authTokenProvider: nil,
            trustRoots: .pemFile("proxy-ca.pem")
        ).get()
        #expect(!emulator.usesTLS)
    }

    @Test("an IP-literal host connects by address (TLS then sends no SNI, which NIOSSL refuses for an IP), a name through DNS")
    func transportTargets() {
        #expect(FirestoreRPC.target(host: "127.0.0.1", port: 8443) is ResolvableTargets.IPv4)
        #expect(FirestoreRPC.target(host: "::1", port: 8443) is ResolvableTargets.IPv6)
        #expect(FirestoreRPC.target(host: "localhost", port: 8443) is ResolvableTargets.DNS)
        #expect(FirestoreRPC.target(host: "firestore.googleapis.com", port: 443) is ResolvableTargets.DNS)
    }

    @Test("a missing trust roots file or PEM without a certificate is an invalidArgument error naming the problem")
    func unusableRoots() {
        let missing = "/nonexistent-\(UUID().uuidString)/ca.pem"
        let cases: [(TLSTrustRoots, String)] = [
            (.pemFile(missing), missing),
            (.pem(Data("not a certificate".utf8)), "no PEM certificate"),
        ]
        for (roots, expected) in cases {
            let configuration = FirestoreRPCConfiguration(
                databaseID: database, host: "127.0.0.1", port: 8443, usesTLS: true, trustRoots: roots,
                authTokenProvider: nil)
            #expect {
                _ = try FirestoreRPC(configuration: configuration)
            } throws: { error in
                guard let error = error as? FirestoreErrorCode else { return false }
                return error.code == .invalidArgument && error.message.contains(expected)
            }
        }
    }

    @Test("a PEM that is not a valid certificate is an invalidArgument error, not a crash")
    func malformedCertificate() {
        let pem = Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)
        let configuration = FirestoreRPCConfiguration(
            databaseID: database, host: "127.0.0.1", port: 8443, usesTLS: true, trustRoots: .pem(pem),
            authTokenProvider: nil)
        #expect {
            _ = try FirestoreRPC(configuration: configuration)
        } throws: { error in
            guard let error = error as? FirestoreErrorCode else { return false }
            return error.code == .invalidArgument && error.message.contains("TLS trust roots (PEM")
        }
    }
}
