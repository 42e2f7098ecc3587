import Cairn
import CairnGRPC
import CairnModel
import CairnTestSupport
import Foundation

/// `cairn demo --tls`: the production shape of a connection on one machine. A fresh test CA (openssl), Debian's
/// nginx terminating TLS in front of the Firestore emulator, and a client configured as for Cloud Firestore
/// (`host`, `isSSLEnabled = true`, a Google service account's credentials) that trusts the CA through
/// `tlsTrustRoots`: it listens and writes, and what the emulator holds is checked with a raw plaintext client. The
/// service account's key file and its OAuth2 token endpoint are local (`LocalOAuthTokenEndpoint`, which verifies
/// the signed JWT and grants an access token the emulator accepts), so the whole credentials path runs.
/// Then the failures a misconfigured client gets: no CA (system roots), and a certificate for another name.
///
/// ```swift
/// let passed = try await TLSDemo.run(emulator: address) { print($0) }
/// ```
enum TLSDemo {
    /// The credentials of the demo's clients: a service-account key file written for the local token endpoint
    /// (0600, in the CA's private directory), read as a production program reads its key.
    static func makeCredentialsProvider(
        endpoint: LocalOAuthTokenEndpoint, directory: URL
    ) throws -> ServiceAccountCredentialsProvider {
        let keyFile = directory.appendingPathComponent("service-account.json")
        try endpoint.writeKeyFile(to: keyFile)
        return try ServiceAccountCredentialsProvider(keyFile: keyFile)
    }

    /// Runs the demo against the emulator at `emulator`; true when every check passed.
    static func run(emulator: EmulatorAddress, say: @escaping (String) -> Void) async throws -> Bool {
        let project = "demo-cairn-tls-\(getpid())"
        let rpc = try emulator.rpcClient(project: project)
        defer { rpc.shutdown() }
        say("1. a test CA (openssl) and nginx as a TLS-terminating gRPC proxy in front of the emulator at \(emulator)")
        let proxy = try await NginxTLSProxy.start(upstreamPort: emulator.port)
        defer { proxy.stop() }
        say("   nginx listens on 127.0.0.1:\(proxy.port) (certificate for localhost, 127.0.0.1) and "
            + "127.0.0.1:\(proxy.wrongNamePort) (certificate for \(NginxTLSProxy.wrongHostName)); CA: "
            + proxy.authority.certificatePath)
        let endpoint = try await LocalOAuthTokenEndpoint.start()
        defer { endpoint.stop() }
        let credentials = try makeCredentialsProvider(endpoint: endpoint, directory: proxy.authority.directory)
        say("   a service-account key file for \(endpoint.clientEmail), its token_uri a local OAuth2 endpoint at "
            + endpoint.url.absoluteString)
        var checks = Checks(say: say)

        say("2. connect as to production: host 127.0.0.1:\(proxy.port), isSSLEnabled = true, "
            + "tlsTrustRoots = .pemFile(CA), credentialsProvider = ServiceAccountCredentialsProvider(keyFile:)")
        let db = client(
            project: project, port: proxy.port, trustRoots: .pemFile(proxy.authority.certificatePath),
            credentials: credentials)
        _ = try await rpc.commit([
            .set(try DocumentKey(parsing: "tls-demo/server"), value: ObjectValue(["by": .string("the emulator")]))
        ])
        var events = db.collection("tls-demo").snapshots(includeMetadataChanges: true).makeAsyncIterator()
        say("3. listen to tls-demo (a document written on the emulator beforehand), write one, wait for the ack")
        db.document("tls-demo/client").setData(["by": "the TLS client"], completion: nil)
        while let snapshot = try await events.next() {
            say("    → \(OfflineDemo.describe(snapshot))")
            if snapshot.count == 2 && !snapshot.metadata.isFromCache && !snapshot.metadata.hasPendingWrites { break }
        }
        try await db.waitForPendingWrites()
        let stored = try await rpc.lookup([
            try DocumentKey(parsing: "tls-demo/server"), try DocumentKey(parsing: "tls-demo/client"),
        ])
        let values = stored.map { document in
            document.data.fields["by"].map { $0.canonicalString } ?? "missing"
        }
        checks.expect(
            "the emulator (a raw plaintext lookup) holds both documents: \(values.joined(separator: ", "))",
            stored.allSatisfy(\.exists) && values[1].contains("the TLS client"))
        checks.expect(
            "the token endpoint verified the service account's signed JWT and granted \(endpoint.grantedTokens.count) "
                + "access token(s) to the client, which the emulator accepted",
            !endpoint.grantedTokens.isEmpty)
        try await db.terminate()

        say("4. the same client without the CA (tlsTrustRoots = .system): a server count")
        let untrusted = client(project: project, port: proxy.port, trustRoots: .system, credentials: credentials)
        let unknownCA = await countError(untrusted)
        checks.expect(
            "fails unavailable naming the certificate problem: \(unknownCA.map { "\($0.code): \($0.message)" } ?? "it succeeded")",
            unknownCA?.code == .unavailable && unknownCA?.message.contains("certificate verify failed") == true)
        try await untrusted.terminate()

        say("5. with the CA, but nginx presents a certificate for \(NginxTLSProxy.wrongHostName) (port \(proxy.wrongNamePort))")
        let wrongName = client(
            project: project, port: proxy.wrongNamePort, trustRoots: .pemFile(proxy.authority.certificatePath),
            credentials: credentials)
        let mismatch = await countError(wrongName)
        checks.expect(
            "fails unavailable naming the host name: \(mismatch.map { "\($0.code): \($0.message)" } ?? "it succeeded")",
            mismatch?.code == .unavailable && mismatch?.message.contains("not valid for the host name") == true)
        try await wrongName.terminate()
        say(checks.failures == 0 ? "TLS demo: every check passed" : "TLS demo: \(checks.failures) check(s) FAILED")
        return checks.failures == 0
    }

    /// A Firestore instance of `project` over TLS to the proxy's `port`, trusting `trustRoots`, with `credentials`
    /// and a memory cache.
    private static func client(
        project: String, port: Int, trustRoots: TLSTrustRoots, credentials: any CredentialsProvider
    ) -> Firestore {
        let name = "cairn-tls-demo-\(UUID().uuidString.prefix(8))"
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
        let db = Firestore.firestore(app: FirebaseApp.app(name: name)!)
        let settings = db.settings
        settings.host = "127.0.0.1:\(port)"
        settings.isSSLEnabled = true
        settings.tlsTrustRoots = trustRoots
        settings.credentialsProvider = credentials
        settings.cacheSettings = MemoryCacheSettings()
        settings.dispatchQueue = DispatchQueue(label: "cairn.\(name).callbacks")
        db.settings = settings
        return db
    }

    /// The error of a server count on `tls-demo`, nil when it succeeded.
    private static func countError(_ db: Firestore) async -> FirestoreErrorCode? {
        do {
            _ = try await db.collection("tls-demo").count.getAggregation(source: .server)
            return nil
        } catch let error as FirestoreErrorCode {
            return error
        } catch {
            return FirestoreErrorCode(.unknown, "\(error)")
        }
    }

    /// Prints each check as `ok` or `FAILED` and counts the failures.
    private struct Checks {
        let say: (String) -> Void
        var failures = 0

        mutating func expect(_ what: String, _ passed: Bool) {
            say("   \(passed ? "ok" : "FAILED"): \(what)")
            if !passed { failures += 1 }
        }
    }
}
