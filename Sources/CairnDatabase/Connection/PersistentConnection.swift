import CairnDatabaseCore
import Foundation
import Synchronization

/// The connection to a Realtime Database server over protocol v5 (Firebase's `PersistentConnection`): one
/// WebSocket at a time, reconnected with Firebase's backoff while the repo wants to be online.
///
/// A connection attempt fetches the auth token (the token provider's; without one, `owner` for an emulator and
/// none otherwise),
/// opens `ws[s]://HOST/.ws?v=5&ns=NS[&ls=LAST_SESSION]` (HOST: the host the last hello named, else the
/// endpoint's) and waits up to 30 s for the server's hello. The hello gives the server time offset (reported to
/// the delegate as `connectionDidConnect`), the session id (sent back as `ls` next time) and the host to dial next
/// time (not for an emulator). Then, in this order: the SDK statistics (`s`, once per process), `auth` (when
/// there is a token; the rest waits for its `ok`), every listen, the puts and merges not yet answered in the order
/// they were made, the gets, and the onDisconnect requests made while offline. A put's answer that arrives while a
/// listen is unanswered waits for it, so the listen's data comes first.
///
/// When the socket drops: sent transaction puts fail with `disconnect`, other requests stay to be sent again,
/// and the delegate hears `connectionDidDisconnect` (when a hello had arrived). The next attempt follows
/// ``ReconnectBackoff``. `interrupt()` (goOffline) closes and stays offline until `resume()`. The server's
/// control messages: `r` (reset) dials the host it names at once, `s` (shutdown) stops reconnecting for good and
/// is reported, `e` (error) is reported. After 45 s with nothing sent the frame `0` keeps the socket alive.
///
/// All state lives on `queue`; every entry point hops onto it. Tokens never reach the log.
///
/// ```swift
/// let connection = PersistentConnection(endpoint: endpoint, tokenProvider: nil)
/// let repo = Repo(connection: connection, deliver: { _ in })   // sets the delegate, calls resume()
/// ```
final class PersistentConnection: DatabaseConnection, @unchecked Sendable {
    /// How long a connection attempt may take, from dialling to the server's hello.
    static let connectTimeout: TimeInterval = 30
    /// The keepalive frame `0` goes out after this long with nothing sent.
    static let keepaliveInterval: TimeInterval = 45

    let queue = DispatchQueue(label: "cairn.database.connection")
    let endpoint: DatabaseEndpoint
    private let tokenProvider: (@Sendable () async throws -> String?)?
    private let makeTransport: TransportFactory
    let clock: any ConnectionClock
    private let random: @Sendable () -> Double
    let stats: StatsGate
    private let logSink: LogSink
    private let storedDelegate = Mutex(WeakDelegate())

    enum Phase: Equatable {
        case disconnected
        case gettingToken
        case connecting
        case authenticating
        case connected
    }

    // Everything below is touched only on `queue`.
    var phase = Phase.disconnected
    var transport: (any ConnectionTransport)?
    var transportNumber = 0
    private var tokenAttempt = 0
    private var interrupted = false
    /// Set by the server's shutdown: no reconnecting for the life of this connection.
    var killed = false
    var serverReset = false
    private var backoff = ReconnectBackoff()
    private var retryTimer: (any ConnectionTimer)?
    var connectTimer: (any ConnectionTimer)?
    var keepaliveTimer: (any ConnectionTimer)?
    private var reassembler = FrameReassembler()
    var authToken: String?
    var connectedAt: Date?
    var lastSent = Date.distantPast
    var lastSessionID: String?
    /// The host the last hello or reset named.
    var cachedHost: String?

    var responseHandlers: [Int: (String, JSONValue?) -> Void] = [:]
    private var nextRequestNumber = 1
    var listens: [String: OutstandingListen] = [:]
    var nextListenNumber = 0
    var puts: [Int: OutstandingPut] = [:]
    var nextPutNumber = 0
    var gets: [Int: OutstandingGet] = [:]
    var nextGetNumber = 0
    var onDisconnectQueue: [OnDisconnectRequest] = []
    /// Listens sent and not yet answered, and the put answers waiting for them.
    var unansweredListens = 0
    var heldPutAnswers: [() -> Void] = []

    /// Where the connection's log lines go: debug lines (only built when wanted) and warnings.
    typealias LogSink = @Sendable (_ isWarning: Bool, _ message: () -> String) -> Void

    /// Debug lines to ``DatabaseLog`` (when logging is on), warnings always.
    static let databaseLog: LogSink = { isWarning, message in
        if isWarning { DatabaseLog.warn(message()) } else { DatabaseLog.log(message()) }
    }

    /// `makeTransport`, `clock`, `random`, `stats` and `log` are for tests; by default: ``WebSocketTransport``,
    /// the wall clock, a uniform random number, statistics once per process, and ``DatabaseLog``.
    init(endpoint: DatabaseEndpoint, tokenProvider: (@Sendable () async throws -> String?)?,
         makeTransport: @escaping TransportFactory = { WebSocketTransport.open($0, onEvent: $1) },
         clock: any ConnectionClock = SystemConnectionClock(),
         random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
         stats: StatsGate = .process, log: @escaping LogSink = PersistentConnection.databaseLog) {
        self.endpoint = endpoint
        self.tokenProvider = tokenProvider
        self.makeTransport = makeTransport
        self.clock = clock
        self.random = random
        self.stats = stats
        self.logSink = log
    }

    func log(_ message: @autoclosure () -> String) { logSink(false, message) }
    func warn(_ message: String) { logSink(true, { message }) }

    var delegate: (any DatabaseConnectionDelegate)? {
        get { storedDelegate.withLock { $0.value } }
        set { storedDelegate.withLock { $0.value = newValue } }
    }

    /// Waits for everything queued so far on the connection's queue, then runs `body` there.
    func sync<T>(_ body: () -> T) -> T { queue.sync(execute: body) }

    // MARK: Online and offline

    func resume() {
        queue.async { [self] in
            interrupted = false
            scheduleConnect()
        }
    }

    func interrupt() {
        queue.async { [self] in
            interrupted = true
            retryTimer?.cancel()
            retryTimer = nil
            if transport != nil {
                dropTransport(reason: "going offline")
            } else {
                tokenAttempt += 1
                phase = .disconnected
            }
            backoff.signalSuccess()
        }
    }

    private var shouldReconnect: Bool { !interrupted && !killed }

    /// Schedules the next attempt, unless one is scheduled already.
    private func scheduleConnect() {
        guard shouldReconnect, phase == .disconnected, retryTimer == nil else { return }
        let delay = backoff.nextDelay(random: random())
        log("connecting to \(endpoint.host) in \(String(format: "%.3f", delay)) s")
        retryTimer = clock.schedule(after: delay, on: queue) { [weak self] in self?.fetchTokenAndOpen() }
    }

    private func fetchTokenAndOpen() {
        retryTimer = nil
        guard shouldReconnect, phase == .disconnected else { return }
        tokenAttempt += 1
        let attempt = tokenAttempt
        phase = .gettingToken
        guard let tokenProvider else { return open(token: endpoint.isEmulator ? "owner" : nil) }
        Task { [weak self] in
            let result: Result<String?, any Error>
            do { result = .success(try await tokenProvider()) } catch { result = .failure(error) }
            guard let self else { return }
            queue.async { self.tokenArrived(result, attempt: attempt) }
        }
    }

    private func tokenArrived(_ result: Result<String?, any Error>, attempt: Int) {
        guard attempt == tokenAttempt, phase == .gettingToken else { return }
        switch result {
        case .success(let token):
            open(token: token)
        case .failure(let error):
            warn("The auth token provider failed (\(type(of: error))); retrying the connection")
            phase = .disconnected
            scheduleConnect()
        }
    }

    private func open(token: String?) {
        authToken = token
        let host = cachedHost ?? endpoint.host
        guard let address = endpoint.webSocketURL(host: host, lastSessionID: lastSessionID) else {
            warn("Cannot connect: \"\(host)\" is not a host name or address with an optional port")
            cachedHost = nil
            phase = .disconnected
            return scheduleConnect()
        }
        phase = .connecting
        transportNumber += 1
        let number = transportNumber
        log("opening \(address)")
        transport = makeTransport(address) { [weak self] event in
            guard let self else { return }
            queue.async { self.handle(event, transport: number) }
        }
        connectTimer = clock.schedule(after: Self.connectTimeout, on: queue) { [weak self] in
            guard let self, number == transportNumber, phase == .connecting else { return }
            log("no hello from \(address.hostHeader) within \(Int(Self.connectTimeout)) s")
            dropTransport(reason: "connect timeout")
        }
    }

    // MARK: The socket

    private func handle(_ event: TransportEvent, transport number: Int) {
        guard number == transportNumber, transport != nil else { return }
        switch event {
        case .opened:
            log("socket open")
        case .received(let frame):
            do throws(DatabaseCoreError) {
                guard let text = try reassembler.receive(frame) else { return }
                handle(try WireMessage(text: text))
            } catch {
                warn("Closing the connection: the server sent a bad message: \(error.message)")
                dropTransport(reason: "bad message")
            }
        case .closed(let reason):
            transportDidClose(reason: reason)
        }
    }

    /// Sends one request; `onResponse` gets the answer's status and data.
    func send(_ action: String, _ body: JSONValue, onResponse: ((String, JSONValue?) -> Void)? = nil) {
        guard let transport else { return }
        let number = nextRequestNumber
        nextRequestNumber += 1
        if let onResponse { responseHandlers[number] = onResponse }
        let path = body.objectValue?["p"]?.wireString.map { " " + $0 } ?? ""
        log("sending \(action)\(path) (request \(number))")
        for frame in WireFrames.split(WireMessage.request(id: number, action: action, body: body).text) {
            transport.send(frame)
        }
        lastSent = clock.now()
    }

    /// Closes the current socket now; what follows is as if the server had closed it.
    func dropTransport(reason: String) {
        guard let transport else { return }
        transport.close()
        transportDidClose(reason: reason)
    }

    private func transportDidClose(reason: String?) {
        let wasConnected = connectedAt != nil
        if !wasConnected, cachedHost != nil {
            // The host a hello named did not answer: dial the configured one next time.
            cachedHost = nil
        }
        log("disconnected" + (reason.map { ": \($0)" } ?? ""))
        transport = nil
        transportNumber += 1
        phase = .disconnected
        connectTimer?.cancel()
        keepaliveTimer?.cancel()
        reassembler = FrameReassembler()
        responseHandlers = [:]
        unansweredListens = 0
        releaseHeldPutAnswers()
        forgetSentRequests()
        if shouldReconnect {
            if serverReset || connectedAt.map({ clock.now().timeIntervalSince($0) > ReconnectBackoff.successfulConnectionDuration }) == true {
                backoff.signalSuccess()
            }
            scheduleConnect()
        }
        serverReset = false
        connectedAt = nil
        if wasConnected { delegate?.connectionDidDisconnect() }
    }

    private func handle(_ message: WireMessage) {
        switch message {
        case .control(let type, let payload):
            handleControl(type, payload)
        case .response(let id, let status, let data):
            responseHandlers.removeValue(forKey: id)?(status, data)
        case .push(let action, let body):
            handlePush(action, body)
        case .request(_, let action, _):
            log("ignoring a request (\(action)) from the server")
        }
    }
}

/// The delegate, held weakly (the repo owns the connection).
private struct WeakDelegate {
    weak var value: (any DatabaseConnectionDelegate)?
}
