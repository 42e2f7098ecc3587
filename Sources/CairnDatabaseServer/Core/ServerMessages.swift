import CairnDatabaseCore

/// The v5 messages the server sends, built on the shared ``WireMessage`` codec (one message, before frame
/// splitting):
///
/// ```text
/// hello      {"t":"c","d":{"t":"h","d":{"ts":<ms>,"v":"5","h":"<host:port>","s":"<session>"}}}
/// response   {"t":"d","d":{"r":<n>,"b":{"s":"ok"|"permission_denied"|"datastale"|"failed","d":<data or message>}}}
/// push       {"t":"d","d":{"a":"d"|"m"|"c","b":{"p":"<path>","d":<data>[,"t":<tag>][,"q":<query>]}}}
/// error      {"t":"c","d":{"t":"e","d":"<message>"}}      (a message that is not a request)
/// ```
///
/// Paths are sent without a leading slash, as Firebase's server sends them; data in the export form
/// (`.priority`, `.value`).
enum ServerMessages {
    static func hello(timestamp: Int64, host: String, session: String) -> String {
        WireMessage.control(type: WireControl.hello, payload: WireHello(timestamp: timestamp, host: host, sessionID: session).payload).text
    }

    static func error(_ message: String) -> String {
        WireMessage.control(type: WireControl.error, payload: .string(message)).text
    }

    static func response(_ request: Int, status: String, data: JSONValue) -> String {
        WireMessage.response(id: request, status: status, data: data).text
    }

    /// A `d` (overwrite) push, tagged for a filtered query.
    static func overwrite(_ path: DatabasePath, _ node: Node, tag: JSONValue?) -> String {
        var body: [String: JSONValue] = ["p": .string(wirePath(path)), "d": node.exportJSON()]
        if let tag { body["t"] = tag }
        return WireMessage.push(action: WirePush.data, body: .object(body)).text
    }

    /// An `m` (merge) push: `{"rel/path": data}` below `path`.
    static func merge(_ path: DatabasePath, _ children: [(DatabasePath, Node)]) -> String {
        var data: [String: JSONValue] = [:]
        for (relative, node) in children { data[wirePath(relative)] = node.exportJSON() }
        return WireMessage.push(action: WirePush.merge, body: .object(["p": .string(wirePath(path)), "d": .object(data)])).text
    }

    /// A `c` push: the listen at `path` (with its query object, if any) was revoked.
    static func revoked(_ path: DatabasePath, query: JSONValue?) -> String {
        var body: [String: JSONValue] = ["p": .string(wirePath(path))]
        if let query { body["q"] = query }
        return WireMessage.push(action: WirePush.listenRevoked, body: .object(body)).text
    }

    static func wirePath(_ path: DatabasePath) -> String {
        path.keys.joined(separator: "/")
    }

    static func encode(_ value: JSONValue) -> String {
        WireMessage.encode(value)
    }
}
