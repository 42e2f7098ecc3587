/// The request actions of the v5 protocol (`{"r":id,"a":ACTION,"b":body}`), client → server.
package enum WireAction {
    /// Listen `{p, h, [q, t]}`: the server pushes the data, then answers `ok`.
    package static let listen = "q"
    /// Unlisten `{p, [q, t]}`.
    package static let unlisten = "n"
    /// One-shot read `{p, q}`, answered with the data.
    package static let get = "g"
    /// Overwrite `{p, d, [h]}`; with `h` a compare-and-set answered `datastale` on a mismatch.
    package static let put = "p"
    /// Merge `{p, d: {relative path: value}}`.
    package static let merge = "m"
    /// onDisconnect overwrite / merge / cancel `{p, d}`.
    package static let onDisconnectPut = "o"
    package static let onDisconnectMerge = "om"
    package static let onDisconnectCancel = "oc"
    /// Authenticate with a JWT `{cred}` (`gauth`: a Google OAuth token), or drop authentication `{}`.
    package static let auth = "auth"
    package static let googleAuth = "gauth"
    package static let unauth = "unauth"
    /// SDK statistics `{c: {name: count}}`, sent once per process.
    package static let stats = "s"
}

/// The push actions of the v5 protocol (`{"a":ACTION,"b":body}`), server → client.
package enum WirePush {
    /// Data overwrite `{p, d, [t]}`.
    package static let data = "d"
    /// Merge `{p, d: {relative path: value}, [t]}`.
    package static let merge = "m"
    /// Range merge `{p, d: [{s, e, m}], [t]}`.
    package static let rangeMerge = "rm"
    /// Listen revoked `{p, [q]}`: the client cancels the query with `permission_denied`.
    package static let listenRevoked = "c"
    /// Authentication revoked `{s, d}`.
    package static let authRevoked = "ac"
    /// App Check token revoked.
    package static let appCheckRevoked = "apc"
    /// Security rules debug output `{msg}`.
    package static let securityDebug = "sd"
}

/// The statuses of a response (`{"r":id,"b":{"s":STATUS,"d":…}}`).
package enum WireStatus {
    package static let ok = "ok"
    package static let permissionDenied = "permission_denied"
    package static let dataStale = "datastale"
    package static let failed = "failed"
    package static let unavailable = "unavailable"
    package static let expiredToken = "expired_token"
    package static let invalidToken = "invalid_token"
}

/// The control messages (`{"t":"c","d":{"t":TYPE,"d":payload}}`).
package enum WireControl {
    /// The server's first message: ``WireHello``.
    package static let hello = "h"
    /// Shutdown `payload: reason`: the client stops reconnecting.
    package static let shutdown = "s"
    /// Reset `payload: host`: reconnect to that host.
    package static let reset = "r"
    /// Error `payload: reason`.
    package static let error = "e"
}

/// The server's hello: its time, the protocol version, the host to dial next time, and the session id (sent back
/// as `ls` when reconnecting).
///
/// ```swift
/// let hello = WireHello(timestamp: 1_700_000_000_000, host: "127.0.0.1:9000", sessionID: "s1")
/// WireMessage.control(type: WireControl.hello, payload: hello.payload).text
/// // {"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1:9000","s":"s1"}}}
/// ```
package struct WireHello: Equatable, Sendable {
    /// The server's clock, milliseconds since 1970.
    package var timestamp: Int64
    package var version: String
    package var host: String
    package var sessionID: String

    package init(timestamp: Int64, version: String = "5", host: String, sessionID: String) {
        self.timestamp = timestamp
        self.version = version
        self.host = host
        self.sessionID = sessionID
    }

    /// Reads a hello payload; nil when a field is missing or of the wrong type.
    package init?(payload: JSONValue) {
        guard case .object(let fields) = payload, case .string(let host)? = fields["h"],
              case .string(let session)? = fields["s"] else { return nil }
        let timestamp: Int64
        switch fields["ts"] {
        case .int(let value)?: timestamp = value
        case .double(let value)? where value.isFinite && abs(value) < 9e15: timestamp = Int64(value)
        default: return nil
        }
        var version = "5"
        if case .string(let value)? = fields["v"] { version = value }
        self.init(timestamp: timestamp, version: version, host: host, sessionID: session)
    }

    package var payload: JSONValue {
        .object(["ts": .int(timestamp), "v": .string(version), "h": .string(host), "s": .string(sessionID)])
    }
}
