import CairnDatabaseCore
import Foundation
import Synchronization

/// The hello and the control messages (`h`, `r`, `s`, `e`), `auth`, the statistics, and the keepalive.
extension PersistentConnection {
    // MARK: Control messages

    func handleControl(_ type: String, _ payload: JSONValue) {
        switch type {
        case WireControl.hello:
            guard phase == .connecting, let hello = WireHello(payload: payload) else {
                warn("Closing the connection: the server sent an unexpected or malformed hello")
                return dropTransport(reason: "bad hello")
            }
            didReceiveHello(hello)
        case WireControl.reset:
            guard case .string(let host) = payload, endpoint.webSocketURL(host: host, lastSessionID: nil) != nil else {
                warn("Ignoring a reset to an invalid host")
                return
            }
            log("reset: the server asks to reconnect to \(host)")
            cachedHost = host
            serverReset = true
            dropTransport(reason: "server reset")
        case WireControl.shutdown:
            let reason = payload.wireString ?? "none given"
            warn("Firebase Database connection was forcefully killed by the server. Will not attempt reconnect. Reason: \(reason)")
            killed = true
            dropTransport(reason: "server shutdown")
        case WireControl.error:
            warn("Server error: \(payload.wireString ?? WireMessage.encode(payload))")
        default:
            log("ignoring the unknown control message \"\(type.prefix(20))\"")
        }
    }

    private func didReceiveHello(_ hello: WireHello) {
        connectTimer?.cancel()
        let now = clock.now()
        connectedAt = now
        lastSessionID = hello.sessionID
        if !endpoint.isEmulator, endpoint.webSocketURL(host: hello.host, lastSessionID: nil) != nil {
            cachedHost = hello.host
        }
        let offset = Double(hello.timestamp) - now.timeIntervalSince1970 * 1000
        log("connected, session \(hello.sessionID)")
        lastSent = now
        if stats.claim() { sendStats() }
        scheduleKeepalive()
        if let authToken {
            phase = .authenticating
            sendAuth(authToken)
        } else {
            phase = .connected
            restoreState()
        }
        delegate?.connectionDidConnect(serverTimeOffset: offset)
    }

    private func sendAuth(_ token: String) {
        send(WireAction.auth, .object(["cred": .string(token)])) { [self] status, data in
            guard phase == .authenticating, authToken == token else { return }
            if status == WireStatus.ok {
                phase = .connected
                restoreState()
            } else {
                authToken = nil
                warn("Authentication failed: \(status) (\(data?.wireString ?? "no reason given"))")
                dropTransport(reason: "authentication failed")
            }
        }
    }

    private func sendStats() {
        send(WireAction.stats, .object(["c": .object([StatsGate.counter: .int(1)])])) { [self] status, _ in
            if status != WireStatus.ok { log("the server refused the statistics: \(status)") }
        }
    }

    // MARK: Keepalive

    private func scheduleKeepalive() {
        keepaliveTimer?.cancel()
        let number = transportNumber
        let delay = lastSent.addingTimeInterval(Self.keepaliveInterval).timeIntervalSince(clock.now())
        keepaliveTimer = clock.schedule(after: delay, on: queue) { [weak self] in
            guard let self, number == transportNumber, let transport else { return }
            if clock.now().timeIntervalSince(lastSent) >= Self.keepaliveInterval {
                transport.send(WireFrames.keepalive)
                lastSent = clock.now()
            }
            scheduleKeepalive()
        }
    }
}

/// Whether this connection sends the SDK statistics: the first connection of the process does (Firebase sends
/// them on a client's first connection).
final class StatsGate: Sendable {
    static let process = StatsGate()
    /// The counter Cairn reports (`{"c": {"sdk.cairn.swift": 1}}`).
    static let counter = "sdk.cairn.swift"
    private let claimed = Atomic(false)

    init() {}

    /// True the first time only.
    func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
}
