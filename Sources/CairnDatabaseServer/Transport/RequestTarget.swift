import NIOHTTP1

/// A request's target split into its path and its query parameters, percent-decoded (`+` is a space in the
/// query), and the namespace it addresses: `ns=`, else the first label of a host name such as
/// `demo.firebaseio.com`, else the configuration's default.
///
/// ```swift
/// let target = RequestTarget(uri: "/users/ada.json?ns=demo&orderBy=%22%24key%22", headers: [:], configuration: .init())
/// target.path                 // "/users/ada.json"
/// target.query["orderBy"]     // "\"$key\""
/// ```
struct RequestTarget: Sendable {
    var path: String
    var query: [String: String] = [:]
    var namespace: String

    init(uri: String, headers: HTTPHeaders, configuration: DatabaseServerConfiguration) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = Self.percentDecode(String(parts.first ?? ""), plusIsSpace: false) ?? String(parts.first ?? "")
        if parts.count > 1 {
            for item in parts[1].split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = Self.percentDecode(String(pair[0]), plusIsSpace: true) else { continue }
                let value = pair.count > 1 ? Self.percentDecode(String(pair[1]), plusIsSpace: true) ?? "" : ""
                query[name] = value
            }
        }
        if let ns = query["ns"], !ns.isEmpty {
            namespace = ns
        } else if let host = headers.first(name: "host")?.split(separator: ":").first,
                  let label = host.split(separator: ".").first, host.contains("."),
                  !host.allSatisfy({ $0.isNumber || $0 == "." }) {
            namespace = String(label)
        } else {
            namespace = configuration.defaultNamespace
        }
    }

    /// The text with `%XX` escapes decoded, nil when an escape is malformed or the bytes are not UTF-8.
    static func percentDecode(_ text: String, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
