@testable import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Persistent connection: reconnecting, keepalive, frames")
struct ConnectionLifecycleTests {
    /// Connects, then fails `attempts` times before the hello; returns the delay scheduled after each failure.
    private func failureDelays(random: Double, attempts: Int) -> [Double] {
        let harness = ConnectionHarness(random: random)
        harness.connect(hello: false)
        var delays: [Double] = []
        for _ in 0..<attempts {
            harness.socket.drop("refused")
            harness.settle()
            delays.append(harness.clock.pendingDelays.first ?? -1)
            harness.clock.advance(by: delays.last!)
            harness.settle()
        }
        return delays
    }

    @Test("Reconnect delays: the first attempt at once, then 1 s growing ×1.3 up to 30 s, with 70 % jitter")
    func backoffSequence() {
        var expected: [Double] = []
        var delay = 1.0
        for _ in 0..<16 {
            expected.append(delay)
            delay = min(delay * 1.3, 30)
        }
        let full = failureDelays(random: 1, attempts: 16)
        #expect(zip(full, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(full)")
        #expect(full.last == 30)
        let least = failureDelays(random: 0, attempts: 3)
        #expect(zip(least, [0.3, 0.39, 0.507]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(least)")
    }

    @Test("A connection that lasted 30 s resets the backoff: the next attempt is immediate")
    func backoffResetsAfterThirtySeconds() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.socket.drop()
        harness.settle()
        #expect(harness.clock.pendingDelays == [1])
        harness.clock.advance(by: 1)
        harness.socket.hello()
        harness.settle()
        harness.clock.advance(by: 31)
        harness.socket.drop()
        harness.settle()
        #expect(harness.clock.pendingDelays.contains(0))
    }

    @Test("interrupt closes the socket and stays offline until resume, which connects at once")
    func interruptAndResume() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.connection.interrupt()
        harness.settle()
        #expect(harness.socket.isClosed)
        #expect(harness.delegate.entries == ["connected", "disconnected"])
        harness.clock.advance(by: 600)
        #expect(harness.transports.count == 1)
        harness.connection.resume()
        harness.settle()
        harness.clock.advance(by: 0)
        #expect(harness.transports.count == 2)
    }

    @Test("s (shutdown) closes and stops reconnecting, even after goOnline; r (reset) reconnects at once to the named host")
    func shutdownAndReset() {
        let reset = ConnectionHarness()
        reset.connect()
        reset.socket.control(WireControl.reset, .string("s-other.example.test"))
        reset.settle()
        #expect(reset.socket.isClosed)
        reset.clock.advance(by: 0)
        #expect(reset.transports.count == 2)
        #expect(reset.socket.address.host == "s-other.example.test")

        let harness = ConnectionHarness()
        harness.connect()
        harness.socket.control(WireControl.shutdown, .string("This database is disabled"))
        harness.settle()
        #expect(harness.socket.isClosed)
        #expect(harness.delegate.entries == ["connected", "disconnected"])
        harness.connection.resume()
        harness.settle()
        harness.clock.advance(by: 3_600)
        #expect(harness.transports.count == 1)
    }

    @Test("The keepalive frame 0 goes out after 45 s with nothing sent, not before")
    func keepalive() {
        let harness = ConnectionHarness()
        harness.connect()
        harness.clock.advance(by: 30)
        harness.connection.put(DatabasePath(unvalidated: "a"), .int(1), hash: nil) { _ in }
        harness.settle()
        harness.clock.advance(by: 44)
        #expect(!harness.socket.frames.contains("0"))
        harness.clock.advance(by: 1)
        #expect(harness.socket.frames.last == "0")
        harness.clock.advance(by: 45)
        #expect(harness.socket.frames.filter { $0 == "0" }.count == 2)
    }

    @Test("A message over 16,384 characters goes out as a count frame and chunks; split messages from the server are joined")
    func bigMessages() {
        let harness = ConnectionHarness()
        harness.connect()
        let big = String(repeating: "x", count: 40_000)
        harness.connection.put(DatabasePath(unvalidated: "big"), .string(big), hash: nil) { _ in }
        harness.settle()
        let frames = harness.socket.frames.dropFirst()
        #expect(frames.first == "3")
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= 16_384 })
        #expect(harness.socket.request(WireAction.put)?.body.objectValue?["d"] == .string(big))

        let push = WireMessage.push(action: "d", body: .object(["p": .string("/big"), "d": .string(big)])).text
        for frame in WireFrames.split(push) { harness.socket.receiveFrame(frame) }
        harness.settle()
        #expect(harness.delegate.entries.last == "data /big \"\(big)\"")
    }

    @Test("Tokens never reach the log, debug lines included")
    func tokensNotLogged() async throws {
        let harness = ConnectionHarness(tokenProvider: { "SECRET-TOKEN-42" })
        harness.connect(hello: false)
        try #require(await harness.wait { harness.transports.count == 1 })
        harness.socket.hello()
        harness.settle()
        harness.socket.answer(harness.socket.request("auth")!.id, "invalid_token", .string("bad"))
        harness.settle()
        #expect(harness.socket.request("auth")?.body == .parse(#"{"cred":"SECRET-TOKEN-42"}"#))
        let lines = harness.logLines.values
        #expect(lines.contains { $0.contains("sending auth") })
        #expect(lines.contains { $0.contains("Authentication failed: invalid_token") })
        #expect(!lines.contains { $0.contains("SECRET-TOKEN-42") })
    }
}
