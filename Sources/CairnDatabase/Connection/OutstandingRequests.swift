import CairnDatabaseCore

/// A listen the connection keeps while the sync tree wants it: sent on every (re)connection until unlistened or
/// refused. A class, so that an answer can tell whether its listen is still the current one.
final class OutstandingListen {
    let query: QuerySpec
    let tag: Int?
    /// The hash of the cached data when the listen started. A listen sent again after a reconnect sends
    /// ``unmatchableHash`` instead: the cache may have changed since, so the server must send its data.
    let hash: String
    let onComplete: @Sendable (ListenStatus) -> Void
    /// Orders the listens when they are restored.
    let number: Int
    var sent = false

    init(query: QuerySpec, tag: Int?, hash: String, number: Int, onComplete: @escaping @Sendable (ListenStatus) -> Void) {
        self.query = query
        self.tag = tag
        self.hash = hash
        self.number = number
        self.onComplete = onComplete
    }

    /// A well-formed hash (base64 of a SHA-1) that no data has: the SHA-1 of empty text. A node's hash text is
    /// never empty (a leaf's is `type:value`, a children node's lists its children) and the empty node's hash is
    /// `""`, so the server never finds it equal to its own and always sends the data. (`""` would not do: it is
    /// the hash of no data, and a server without data at the path would skip sending the deletion.)
    static let unmatchableHash = "2jmj7l5rSw0yVb/vlWAYkK/YBwk="

    /// `{p, h, [q, t]}`: the parameters and tag only for a filtered query.
    var body: JSONValue {
        var body: [String: JSONValue] = ["p": .string(query.path.description), "h": .string(sent ? Self.unmatchableHash : hash)]
        if let tag {
            body["q"] = .object(query.params.wireObject)
            body["t"] = .int(Int64(tag))
        }
        return .object(body)
    }
}

/// A put or merge not yet answered: kept (in order) until the server answers, sent again after a reconnect.
final class OutstandingPut {
    let action: String
    let body: JSONValue
    /// A put with a hash (a transaction's compare-and-set) fails with `disconnect` when the connection drops
    /// after it was sent: the client cannot know whether it was applied.
    let isTransaction: Bool
    let onComplete: @Sendable (WriteStatus) -> Void
    var sent = false

    init(action: String, body: JSONValue, isTransaction: Bool, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        self.action = action
        self.body = body
        self.isTransaction = isTransaction
        self.onComplete = onComplete
    }
}

/// A `getData` read not yet answered; sent again after a reconnect.
final class OutstandingGet {
    let query: QuerySpec
    let onComplete: @Sendable (GetResponse) -> Void

    init(query: QuerySpec, onComplete: @escaping @Sendable (GetResponse) -> Void) {
        self.query = query
        self.onComplete = onComplete
    }

    var body: JSONValue { .object(["p": .string(query.path.description), "q": .object(query.params.wireObject)]) }
}

/// An onDisconnect request made while offline: sent after the next connection's puts and gets. The server keeps
/// these per connection, so they are never sent twice.
struct OnDisconnectRequest {
    let action: String
    let body: JSONValue
    let onComplete: @Sendable (WriteStatus) -> Void
}
