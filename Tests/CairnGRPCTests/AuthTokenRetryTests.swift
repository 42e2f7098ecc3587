import CairnCore
import CairnModel
import GRPCCore
import Synchronization
import Testing

@testable import CairnGRPC

/// Firebase's `InvalidateToken`: after the server answers `unauthenticated`, the next token is asked for with
/// `forceRefresh`, and a unary call runs once more. The calls here are closures given the call's metadata (no
/// server: the connection is lazy and never made).
@Suite("Auth token refresh after unauthenticated")
struct AuthTokenRetryTests {
    /// What the provider was asked (`forceRefresh` per call) and what the calls sent.
    private final class Seen: Sendable {
        let refreshes = Mutex<[Bool]>([])
        let sent = Mutex<[String]>([])
    }

    /// A client whose provider returns `fresh-N` when forced and `stale` otherwise.
    private func client(_ seen: Seen) throws -> FirestoreRPC {
        try FirestoreRPC(
            configuration: FirestoreRPCConfiguration(
                databaseID: DatabaseID(projectID: "retry"), host: "127.0.0.1", port: 9, usesTLS: false,
                authTokenProvider: { forceRefresh in
                    let count = seen.refreshes.withLock { refreshes in
                        refreshes.append(forceRefresh)
                        return refreshes.filter { $0 }.count
                    }
                    return forceRefresh ? "fresh-\(count)" : "stale"
                }))
    }

    /// A call that the server refuses while the token is `stale` (or always, with `refuseAll`).
    private func call(_ seen: Seen, refuseAll: Bool = false) -> @Sendable (Metadata) async throws -> Int {
        { metadata in
            let authorization = metadata[stringValues: "authorization"].first(where: { _ in true }) ?? ""
            seen.sent.withLock { $0.append(String(authorization)) }
            if refuseAll || authorization == "Bearer stale" {
                throw RPCError(code: .unauthenticated, message: "Request had invalid authentication credentials.")
            }
            return 42
        }
    }

    @Test("An unauthenticated answer makes a unary call ask for a forced-fresh token and run once more")
    func retriedOnceWithFreshToken() async throws {
        let seen = Seen()
        let rpc = try client(seen)
        defer { rpc.shutdown() }
        #expect(try await rpc.withMetadata("test", call(seen)) == 42)
        #expect(seen.refreshes.withLock { $0 } == [false, true])
        #expect(seen.sent.withLock { $0 } == ["Bearer stale", "Bearer fresh-1"])
    }

    @Test("A second refusal is the call's unauthenticated error, after exactly one retry")
    func secondRefusalFails() async throws {
        let seen = Seen()
        let rpc = try client(seen)
        defer { rpc.shutdown() }
        let error = await #expect(throws: FirestoreErrorCode.self) {
            try await rpc.withMetadata("test", call(seen, refuseAll: true))
        }
        #expect(error?.code == .unauthenticated)
        #expect(seen.sent.withLock { $0 } == ["Bearer stale", "Bearer fresh-1"])
    }

    @Test("Other errors are not retried and do not force a refresh")
    func otherErrorsNotRetried() async throws {
        let seen = Seen()
        let rpc = try client(seen)
        defer { rpc.shutdown() }
        let error = await #expect(throws: FirestoreErrorCode.self) {
            try await rpc.withMetadata("test") { _ -> Int in throw RPCError(code: .permissionDenied, message: "no") }
        }
        #expect(error?.code == .permissionDenied)
        _ = try await rpc.metadata()
        #expect(seen.refreshes.withLock { $0 } == [false, false])
    }

    @Test("A stream closed with unauthenticated makes the next stream start ask for a fresh token, once")
    func streamRefusalForcesOneRefresh() async throws {
        let seen = Seen()
        let rpc = try client(seen)
        defer { rpc.shutdown() }
        let closed = rpc.failure(RPCError(code: .unauthenticated, message: "expired"))
        #expect(closed.code == .unauthenticated)
        _ = try await rpc.metadata()
        _ = try await rpc.metadata()
        #expect(seen.refreshes.withLock { $0 } == [true, false])
    }
}
