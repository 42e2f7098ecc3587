import Foundation

/// Where a database's connection goes: the host (with its port, if any), the namespace, TLS, and whether the host
/// is an emulator's. The WebSocket URL is `ws[s]://HOST/.ws?v=5&ns=NAMESPACE[&ls=LAST_SESSION]`.
///
/// The host comes from the database URL (`FirebaseOptions.databaseURL`, `Database.database(url:)`), unless an
/// emulator is named: `useEmulator(withHost:port:)`, else the environment's `FIREBASE_DATABASE_EMULATOR_HOST`
/// (`host:port`). An emulator is dialled without TLS, keeps the URL's namespace, and gets the token `owner` unless
/// a token provider is set.
///
/// ```swift
/// let endpoint = DatabaseEndpoint(url: try DatabaseURL("https://demo.firebaseio.com"), environment: [:])
/// endpoint.webSocketURL(host: endpoint.host, lastSessionID: nil)  // wss://demo.firebaseio.com/.ws?v=5&ns=demo
/// ```
struct DatabaseEndpoint: Equatable, Sendable {
    /// `host` or `host:port`, as dialled (the server's hello may name another host for the next time).
    let host: String
    let namespace: String
    let secure: Bool
    let isEmulator: Bool

    static let emulatorVariable = "FIREBASE_DATABASE_EMULATOR_HOST"

    init(host: String, namespace: String, secure: Bool, isEmulator: Bool) {
        self.host = host
        self.namespace = namespace
        self.secure = secure
        self.isEmulator = isEmulator
    }

    /// The endpoint of `url`; `url.emulatorHost` (set by `useEmulator`) wins over the environment variable.
    init(url: DatabaseURL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let emulator = url.emulatorHost ?? environment[Self.emulatorVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let emulator {
            self.init(host: emulator, namespace: url.namespace, secure: false, isEmulator: true)
        } else {
            self.init(host: url.host, namespace: url.namespace, secure: url.secure, isEmulator: false)
        }
    }

    /// The WebSocket URL on `host` (this endpoint's, or the one a server's hello or reset named).
    func webSocketURL(host: String, lastSessionID: String?) -> WebSocketAddress? {
        var query = "v=5&ns=" + Self.encode(namespace)
        if let lastSessionID { query += "&ls=" + Self.encode(lastSessionID) }
        return WebSocketAddress(secure: secure, authority: host, target: "/.ws?" + query)
    }

    private static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}

/// A WebSocket server address taken apart for the socket: TLS or not, host, port, and the request target.
struct WebSocketAddress: Equatable, Sendable, CustomStringConvertible {
    let secure: Bool
    let host: String
    let port: Int
    /// `/.ws?v=5&ns=...`
    let target: String

    /// `authority` is `host`, `host:port`, `[v6]` or `[v6]:port`; nil when it is not one of these (empty host,
    /// port not in 1...65535, characters a host cannot have).
    init?(secure: Bool, authority: String, target: String) {
        var host = authority
        var port = secure ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = String(authority[..<colon])
            port = number
        }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._:"))
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(allowed.contains), (1...65_535).contains(port) else {
            return nil
        }
        self.secure = secure
        self.host = host
        self.port = port
        self.target = target
    }

    /// The `Host` header: the host, with the port unless it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    var description: String { (secure ? "wss://" : "ws://") + hostHeader + target }
}
