import Foundation

/// One message of the v5 protocol, as it travels in a frame (after reassembly). Data messages are
/// `{"t":"d","d":M}` where M is a request `{"r":id,"a":action,"b":body}`, its response `{"r":id,"b":{"s":status,
/// "d":data}}` or a server push `{"a":action,"b":body}`; control messages are `{"t":"c","d":{"t":type,"d":payload}}`
/// (``WireControl``). Actions and statuses are kept as strings so that an unknown one can be answered, not refused.
///
/// ```swift
/// let text = WireMessage.request(id: 1, action: WireAction.put,
///                                body: .object(["p": .string("/a"), "d": .int(1)])).text
/// // {"t":"d","d":{"r":1,"a":"p","b":{"p":"/a","d":1}}}
/// let answer = try WireMessage(text: #"{"t":"d","d":{"r":1,"b":{"s":"ok","d":""}}}"#)
/// // .response(id: 1, status: "ok", data: .string(""))
/// ```
package enum WireMessage: Equatable, Sendable {
    /// Client → server.
    case request(id: Int, action: String, body: JSONValue)
    /// Server → client, the answer to the request with the same id.
    case response(id: Int, status: String, data: JSONValue?)
    /// Server → client, unrequested: data, merges, revocations.
    case push(action: String, body: JSONValue)
    /// Either way: hello, shutdown, reset, error.
    case control(type: String, payload: JSONValue)

    /// The deepest nesting accepted in a message (Firebase's data is at most 32 levels deep; the envelope adds 4).
    package static let maxDepth = 64

    /// Parses a message; a malformed one is an `invalidMessage` error saying what is wrong.
    package init(text: String) throws(DatabaseCoreError) {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw DatabaseCoreError(.invalidMessage, "a message is not JSON (\(text.utf8.count) bytes)")
        }
        guard Self.depth(of: json, limit: Self.maxDepth) <= Self.maxDepth else {
            throw DatabaseCoreError(.invalidMessage, "a message is nested deeper than \(Self.maxDepth) levels")
        }
        guard case .object(let envelope) = json, case .string(let type)? = envelope["t"],
              case .object(let inner)? = envelope["d"] else {
            throw DatabaseCoreError(.invalidMessage, #"a message is not {"t": "d" or "c", "d": {...}}"#)
        }
        switch type {
        case "c":
            guard case .string(let controlType)? = inner["t"] else {
                throw DatabaseCoreError(.invalidMessage, "a control message has no type")
            }
            self = .control(type: controlType, payload: inner["d"] ?? .null)
        case "d":
            self = try Self.dataMessage(inner)
        default:
            throw DatabaseCoreError(.invalidMessage, "unknown message type \"\(type.prefix(20))\"")
        }
    }

    private static func dataMessage(_ inner: [String: JSONValue]) throws(DatabaseCoreError) -> WireMessage {
        let body = inner["b"] ?? .null
        if let idValue = inner["r"] {
            guard case .int(let raw) = idValue, raw >= 0, raw <= Int64(Int32.max) else {
                throw DatabaseCoreError(.invalidMessage, "a request id must be an integer from 0 to 2^31 - 1")
            }
            let id = Int(raw)
            if case .string(let action)? = inner["a"] {
                return .request(id: id, action: action, body: body)
            }
            guard case .object(let answer) = body, case .string(let status)? = answer["s"] else {
                throw DatabaseCoreError(.invalidMessage, "a response has no status")
            }
            return .response(id: id, status: status, data: answer["d"])
        }
        guard case .string(let action)? = inner["a"] else {
            throw DatabaseCoreError(.invalidMessage, "a data message has neither a request id nor an action")
        }
        return .push(action: action, body: body)
    }

    /// The message as JSON text for a frame (split long ones with ``WireFrames/split(_:maxFrameLength:)``).
    package var text: String {
        let json: JSONValue
        switch self {
        case .request(let id, let action, let body):
            json = .object(["t": .string("d"), "d": .object(["r": .int(Int64(id)), "a": .string(action), "b": body])])
        case .response(let id, let status, let data):
            var answer: [String: JSONValue] = ["s": .string(status)]
            if let data { answer["d"] = data }
            json = .object(["t": .string("d"), "d": .object(["r": .int(Int64(id)), "b": .object(answer)])])
        case .push(let action, let body):
            json = .object(["t": .string("d"), "d": .object(["a": .string(action), "b": body])])
        case .control(let type, let payload):
            json = .object(["t": .string("c"), "d": .object(["t": .string(type), "d": payload])])
        }
        return Self.encode(json)
    }

    /// JSON text of a value. A value JSON cannot hold (a non-finite double, which the database never stores)
    /// gives `null`.
    package static func encode(_ json: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(json) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The nesting depth of a value, counting no further than `limit + 1` (iterative: no recursion on input).
    private static func depth(of json: JSONValue, limit: Int) -> Int {
        var deepest = 0
        var stack: [(JSONValue, Int)] = [(json, 1)]
        while let (value, level) = stack.popLast() {
            deepest = max(deepest, level)
            if deepest > limit { return deepest }
            switch value {
            case .array(let elements): stack.append(contentsOf: elements.map { ($0, level + 1) })
            case .object(let members): stack.append(contentsOf: members.values.map { ($0, level + 1) })
            default: break
            }
        }
        return deepest
    }
}
