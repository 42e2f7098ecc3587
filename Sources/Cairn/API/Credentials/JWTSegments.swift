import Foundation

/// The base64url segments of a JWT (RFC 7515): encoding a header or claims object, and reading the claims of a
/// token without verifying it (a Firebase ID token's uid and expiry, which the server verifies).
///
/// ```swift
/// let segment = JWTSegments.encode(["alg": "RS256", "typ": "JWT"])
/// let claims = JWTSegments.claims(of: idToken)        // ["user_id": "alice", "exp": 1800003600, ...] or nil
/// ```
enum JWTSegments {
    /// The JSON of `object` (sorted keys) in base64url without padding.
    static func encode(_ object: [String: Any]) -> String {
        // Dictionaries of strings and integers always serialize.
        base64URL((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// `data` in base64url without padding.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of a base64url segment, nil when it is not base64url.
    static func decode(_ segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// A JSON number as a `Double` (JSONSerialization gives `NSNumber`, `Int` or `Double`), nil for anything else.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let value as Int: Double(value)
        case let value as Double: value
        case let value as NSNumber: value.doubleValue
        default: nil
        }
    }

    /// The claims of a three-segment token, nil when it is not a JWT with a JSON object as its payload.
    static func claims(of token: String) -> [String: Any]? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = decode(segments[1]),
            let object = try? JSONSerialization.jsonObject(with: payload)
        else { return nil }
        return object as? [String: Any]
    }
}
