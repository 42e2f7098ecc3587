@testable import CairnDatabase
import CairnDatabaseCore
import Foundation

/// A socket the test plays the server of: it records the frames the connection sends and delivers the server's.
final class ScriptedTransport: ConnectionTransport, @unchecked Sendable {
    let address: WebSocketAddress
    private let onEvent: @Sendable (TransportEvent) -> Void
    private let lock = NSLock()
    private var storedFrames: [String] = []
    private var storedClosed = false

    init(address: WebSocketAddress, onEvent: @escaping @Sendable (TransportEvent) -> Void) {
        self.address = address
        self.onEvent = onEvent
    }

    func send(_ frame: String) { lock.withLock { if !storedClosed { storedFrames.append(frame) } } }
    func close() { lock.withLock { storedClosed = true } }

    /// Every frame sent so far, keepalives and split parts included.
    var frames: [String] { lock.withLock { storedFrames } }
    var isClosed: Bool { lock.withLock { storedClosed } }

    /// The requests sent so far, reassembled and parsed: (id, action, body).
    var requests: [(id: Int, action: String, body: JSONValue)] {
        var reassembler = FrameReassembler()
        return frames.compactMap { frame in
            guard let text = try? reassembler.receive(frame), case .request(let id, let action, let body)? = try? WireMessage(text: text) else {
                return nil
            }
            return (id, action, body)
        }
    }

    var actions: [String] { requests.map(\.action) }

    /// The request with `action` (the first one after skipping `skip`).
    func request(_ action: String, skip: Int = 0) -> (id: Int, action: String, body: JSONValue)? {
        requests.filter { $0.action == action }.dropFirst(skip).first
    }

    // MARK: The server's side

    func open() { onEvent(.opened) }
    func receive(_ message: WireMessage) { onEvent(.received(message.text)) }
    func receiveFrame(_ frame: String) { onEvent(.received(frame)) }
    func hello(timestamp: Int64 = 1_000_000, host: String = "server-1.example.test", session: String = "session-1") {
        open()
        receive(.control(type: WireControl.hello, payload: WireHello(timestamp: timestamp, host: host, sessionID: session).payload))
    }
    func answer(_ id: Int, _ status: String = "ok", _ data: JSONValue? = nil) { receive(.response(id: id, status: status, data: data)) }
    func push(_ action: String, _ body: JSONValue) { receive(.push(action: action, body: body)) }
    func control(_ type: String, _ payload: JSONValue) { receive(.control(type: type, payload: payload)) }
    /// The server closes the socket.
    func drop(_ reason: String = "test drop") {
        lock.withLock { storedClosed = true }
        onEvent(.closed(reason: reason))
    }
}

/// Time the test moves by hand; timers run on the connection's queue when their time comes.
final class ManualClock: ConnectionClock, @unchecked Sendable {
    private final class Entry {
        let due: Date
        let queue: DispatchQueue
        let body: @Sendable () -> Void
        let delay: TimeInterval
        var cancelled = false
        init(due: Date, queue: DispatchQueue, delay: TimeInterval, body: @escaping @Sendable () -> Void) {
            self.due = due
            self.queue = queue
            self.delay = delay
            self.body = body
        }
    }

    private struct Handle: ConnectionTimer, @unchecked Sendable {
        let entry: Entry
        let lock: NSLock
        func cancel() { lock.withLock { entry.cancelled = true } }
    }

    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_000)
    private var entries: [Entry] = []
    private var storedDelays: [TimeInterval] = []

    func now() -> Date { lock.withLock { current } }

    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) -> any ConnectionTimer {
        lock.withLock {
            let entry = Entry(due: current.addingTimeInterval(max(0, delay)), queue: queue, delay: delay, body: body)
            entries.append(entry)
            storedDelays.append(delay)
            return Handle(entry: entry, lock: lock)
        }
    }

    /// The delays of every timer scheduled so far, in order.
    var delays: [TimeInterval] { lock.withLock { storedDelays } }

    /// The delays of the timers that are neither run nor cancelled.
    var pendingDelays: [TimeInterval] { lock.withLock { entries.filter { !$0.cancelled }.map(\.delay) } }

    /// Moves time forward by `seconds`, running each timer that comes due, in time order.
    func advance(by seconds: TimeInterval) {
        let target = now().addingTimeInterval(seconds)
        while true {
            let next: Entry? = lock.withLock {
                entries.removeAll { $0.cancelled }
                guard let entry = entries.filter({ $0.due <= target }).min(by: { $0.due < $1.due }) else { return nil }
                entries.removeAll { $0 === entry }
                current = max(current, entry.due)
                return entry
            }
            guard let next else { break }
            next.queue.sync(execute: next.body)
        }
        lock.withLock { current = target }
    }
}

/// Records what the connection tells its delegate.
final class RecordingDelegate: DatabaseConnectionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    private var storedOffsets: [Double] = []

    func connectionDidConnect(serverTimeOffset: Double) {
        lock.withLock {
            stored.append("connected")
            storedOffsets.append(serverTimeOffset)
        }
    }

    func connectionDidDisconnect() { lock.withLock { stored.append("disconnected") } }

    func connectionDidReceiveData(at path: DatabasePath, _ data: JSONValue, isMerge: Bool, tag: Int?) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(data)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        let entry = "\(isMerge ? "merge" : "data") \(path) \(json)" + (tag.map { " tag \($0)" } ?? "")
        lock.withLock { stored.append(entry) }
    }

    var entries: [String] { lock.withLock { stored } }
    var offsets: [Double] { lock.withLock { storedOffsets } }
}

/// Collects values from callbacks on any thread.
final class Collected<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [T] = []
    func add(_ value: T) { lock.withLock { stored.append(value) } }
    var values: [T] { lock.withLock { stored } }
}

/// A persistent connection on scripted sockets and a manual clock, with its delegate.
final class ConnectionHarness: @unchecked Sendable {
    let clock: ManualClock
    let delegate = RecordingDelegate()
    let connection: PersistentConnection

    /// Every line the connection logged, debug lines included.
    let logLines: Collected<String>

    init(endpoint: DatabaseEndpoint = DatabaseEndpoint(host: "demo.example.test", namespace: "demo", secure: true, isEmulator: false),
         tokenProvider: (@Sendable () async throws -> String?)? = nil, random: Double = 1) {
        let box = TransportBox()
        let clock = ManualClock()
        let lines = Collected<String>()
        self.clock = clock
        self.logLines = lines
        connection = PersistentConnection(endpoint: endpoint, tokenProvider: tokenProvider, makeTransport: { address, onEvent in
            let transport = ScriptedTransport(address: address, onEvent: onEvent)
            box.add(transport)
            return transport
        }, clock: clock, random: { random }, stats: StatsGate(), log: { _, message in lines.add(message()) })
        self.box = box
        connection.delegate = delegate
    }

    private let box: TransportBox

    var transports: [ScriptedTransport] { box.all }
    var socket: ScriptedTransport { box.all.last! }

    /// Waits until the connection has handled everything so far.
    func settle() { connection.sync {} }

    /// resume(), the first attempt (no delay), and the server's hello.
    func connect(hello: Bool = true) {
        connection.resume()
        settle()
        clock.advance(by: 0)
        settle()
        if hello {
            socket.hello()
            settle()
        }
    }

    /// Waits up to `seconds` for `condition` (for work that leaves the connection's queue, such as a token fetch,
    /// which runs as a task: the wait suspends rather than block a thread of the task pool).
    func wait(seconds: Double = 5, until condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            try? await Task.sleep(nanoseconds: 5_000_000)
            settle()
        }
        return true
    }
}

private final class TransportBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ScriptedTransport] = []
    func add(_ transport: ScriptedTransport) { lock.withLock { stored.append(transport) } }
    var all: [ScriptedTransport] { lock.withLock { stored } }
}

extension JSONValue {
    /// A JSON value from text, for expectations.
    static func parse(_ text: String) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .null
    }
}
