import CairnDatabaseCore
import Foundation

/// What the core hands a connection: a message to send (one JSON text, before frame splitting), or an order to
/// close the connection (a test hook, or a connection that cannot keep up).
package enum ServerOutput: Sendable, Equatable {
    case message(String)
    case close
}

/// Where a connection's outputs go, in order; called while the core holds its lock, so it must only enqueue.
package typealias ServerSink = @Sendable (ServerOutput) -> Void

/// Who a connection or request is: no credential, the emulator's `owner` (an administrator, as the Admin SDKs
/// authenticate with the emulator), or a user with a uid (an emulator ID token: an unsigned JWT whose payload
/// holds `user_id` or `sub`). Any other token is accepted as an authenticated user without a uid.
package struct ServerAuth: Sendable, Equatable {
    package var isAuthenticated: Bool
    package var isAdmin: Bool
    package var uid: String?

    package static let anonymous = ServerAuth(isAuthenticated: false, isAdmin: false, uid: nil)

    package init(isAuthenticated: Bool, isAdmin: Bool, uid: String?) {
        self.isAuthenticated = isAuthenticated
        self.isAdmin = isAdmin
        self.uid = uid
    }

    /// The identity a token stands for.
    package init(token: String) {
        if token == "owner" {
            self.init(isAuthenticated: true, isAdmin: true, uid: nil)
            return
        }
        self.init(isAuthenticated: true, isAdmin: false, uid: ServerAuth.uid(fromJWT: token))
    }

    /// `user_id` or `sub` from a JWT's payload, without checking a signature (the emulator's form).
    private static func uid(fromJWT token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count <= 8192 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
              let payload = try? JSONDecoder().decode(JSONValue.self, from: data),
              case .object(let claims) = payload else { return nil }
        if case .string(let uid)? = claims["user_id"] { return uid }
        if case .string(let uid)? = claims["sub"] { return uid }
        return nil
    }
}

/// One listen of a connection: a path and query, the tag of a filtered query, and the last result sent (query
/// listens are evaluated again after each write that touches them, and re-sent when the result changed).
struct ServerListen: Sendable {
    var path: DatabasePath
    var params: QueryParams
    /// The query object as the client sent it (echoed in a revocation `c`), nil for a default listen.
    var wireQuery: JSONValue?
    var tag: JSONValue?
    var lastSent: Node?

    /// Whether this listen gets its full result again after each change (a tagged or filtered query) rather than
    /// path updates.
    var isQuery: Bool { tag != nil || !params.loadsAllData }

    struct Key: Hashable, Sendable {
        var path: DatabasePath
        var query: String
    }
}

/// The state of one WebSocket connection: its namespace, identity, listens and onDisconnect operations (run in
/// the order registered when the connection closes; a later set or cancel at a path drops those below it).
struct ServerSessionState: Sendable {
    let namespace: String
    let sink: ServerSink
    var auth: ServerAuth = .anonymous
    var listens: [ServerListen.Key: ServerListen] = [:]
    var onDisconnect: [ServerWrite] = []
}

/// A connection's handle in the core.
package struct ServerSessionID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int
    package var description: String { "connection \(rawValue)" }
}
