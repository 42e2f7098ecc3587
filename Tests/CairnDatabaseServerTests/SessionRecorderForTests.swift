import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Synchronization
import Testing

/// A client of the core at message level: it sends v5 requests as JSON text and keeps every output the core sent
/// it, decoded, so a test can read the responses and pushes in order.
final class SessionRecorder: Sendable {
    /// What the core sent, shared with the session's sink.
    private final class Outputs: Sendable {
        let list = Mutex<[ServerOutput]>([])
    }

    let core: DatabaseServerCore
    let id: ServerSessionID
    private let received = Outputs()
    private let nextRequest = Mutex(1)

    init(core: DatabaseServerCore, namespace: String = "test") {
        let received = self.received
        self.core = core
        id = core.openSession(namespace: namespace) { output in received.list.withLock { $0.append(output) } }
    }

    /// Sends `{"t":"d","d":{"r":n,"a":action,"b":body}}` and returns n.
    @discardableResult
    func send(_ action: String, _ body: JSONValue) -> Int64 {
        let number = nextRequest.withLock { value -> Int in
            defer { value += 1 }
            return value
        }
        let request = JSONValue.object(["t": .string("d"), "d": .object(["r": .int(Int64(number)), "a": .string(action), "b": body])])
        sendRaw(ServerMessages.encode(request))
        return Int64(number)
    }

    func sendRaw(_ text: String) {
        core.receive(text, from: id)
    }

    /// Every message received so far, decoded, and forgets them.
    func take() -> [JSONValue] {
        received.list.withLock { outputs in
            defer { outputs.removeAll() }
            return outputs.compactMap { output in
                guard case .message(let text) = output else { return nil }
                return try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            }
        }
    }

    /// Whether the core asked for the connection to close.
    var wasAskedToClose: Bool {
        received.list.withLock { $0.contains(.close) }
    }
}

/// Reading the parts of v5 messages in tests.
extension JSONValue {
    subscript(_ key: String) -> JSONValue? { objectValue?[key] }

    /// The response to request `number`: its `b` (`{"s":..., "d":...}`), nil for another message.
    func response(to number: Int64) -> JSONValue? {
        guard self["t"] == .string("d"), let data = self["d"], data["r"] == .int(number) else { return nil }
        return data["b"]
    }

    /// A push's action (`d`, `m`, `c`) and body, nil for another message.
    var push: (action: String, body: JSONValue)? {
        guard self["t"] == .string("d"), let data = self["d"], case .string(let action)? = data["a"], let body = data["b"] else { return nil }
        return (action, body)
    }
}

extension [JSONValue] {
    func response(to number: Int64) -> JSONValue? { lazy.compactMap { $0.response(to: number) }.first }
    var pushes: [(action: String, body: JSONValue)] { compactMap(\.push) }
}

/// JSON text to a value, for test data.
func json(_ text: String) -> JSONValue {
    (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .null
}

/// A core at a fixed time (ms since 1970).
func fixedCore(at time: Int64 = 1_700_000_000_000) -> DatabaseServerCore {
    DatabaseServerCore(host: "127.0.0.1:9000", clock: { time })
}
