import CairnDatabaseCore
import Foundation

/// A database URL taken apart: scheme, host, namespace (the host's first label or `?ns=`), and the path (for
/// ``Database/reference(fromURL:)``). ``emulatorHost`` replaces the host for the connection.
struct DatabaseURL: CustomStringConvertible {
    let secure: Bool
    let host: String
    let namespace: String
    let path: String
    var emulatorHost: String?

    init(_ string: String) throws(DatabaseCoreError) {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host?.lowercased(), !host.isEmpty else {
            throw DatabaseCoreError(.invalidPath, "\(string) is not a database URL; expected https://<database>.firebaseio.com")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        secure = scheme == "https"
        self.host = host + port
        let explicit = components.queryItems?.first { $0.name == "ns" }?.value
        namespace = explicit ?? String(host.split(separator: ".").first ?? "")
        guard !namespace.isEmpty else {
            throw DatabaseCoreError(.invalidPath, "\(string) names no database namespace")
        }
        path = components.percentEncodedPath.removingPercentEncoding ?? components.path
    }

    /// The URL of the root: `https://host` (with `?ns=` when the namespace is not the host's first label).
    var description: String {
        let base = (secure ? "https://" : "http://") + host
        return host.hasPrefix(namespace + ".") ? base : base + "?ns=" + namespace
    }

    /// The URL of `path`, keys percent-encoded.
    func url(of path: DatabasePath) -> String {
        let base = (secure ? "https://" : "http://") + host
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))
        let encoded = path.keys.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
        return base + "/" + encoded.joined(separator: "/")
    }
}
