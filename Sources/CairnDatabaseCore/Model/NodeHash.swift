import Crypto
import Foundation

/// Firebase's node hash: base64 of the SHA-1 of a text form, the value listens send as `h` and transactions compare.
///
/// - Leaf: `[priority:<p>:]<type>:<value>`, type `number`, `string` or `boolean`; a number is the 16 lowercase hex
///   digits of its IEEE-754 double; a priority is `number:<hex>` or `string:<s>`.
/// - Children: `[priority:<p>:]` then `:<key>:<child hash>` for every child in priority order.
/// - Empty: the empty string (not hashed).
extension Node {
    package var hash: String {
        switch storage {
        case .max:
            return ""
        case .leaf(let value):
            var text = priorityHashPrefix
            text += value.hashTypeName + ":"
            switch value {
            case .int, .double: text += Node.ieee754Hex(value.doubleValue ?? 0)
            case .bool(let flag): text += flag ? "true" : "false"
            case .string(let string): text += string
            case .deferred(let json): text += Node.canonicalJSON(json)
            }
            return Node.sha1Base64(text)
        case .children:
            var text = priorityHashPrefix
            for child in sortedChildren(by: .priority) {
                let childHash = child.node.hash
                if !childHash.isEmpty { text += ":" + child.name + ":" + childHash }
            }
            return text.isEmpty ? "" : Node.sha1Base64(text)
        }
    }

    private var priorityHashPrefix: String {
        guard let value = priority.leafValue else { return "" }
        switch value {
        case .string(let string): return "priority:string:" + string + ":"
        default: return "priority:number:" + Node.ieee754Hex(value.doubleValue ?? 0) + ":"
        }
    }

    /// The 16 lowercase hex digits of a double's IEEE-754 bits (Firebase's `doubleToIEEE754String`).
    package static func ieee754Hex(_ value: Double) -> String {
        let hex = String(value.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    package static func sha1Base64(_ text: String) -> String {
        Data(Insecure.SHA1.hash(data: Data(text.utf8))).base64EncodedString()
    }

    /// JSON text with sorted keys (for deferred values in hashes and query identifiers).
    package static func canonicalJSON(_ json: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(json), let text = String(data: data, encoding: .utf8) else { return "" }
        return text
    }
}
