import CairnDatabaseCore
import Foundation

/// A small subset of Firebase's security rules (`cairn database-emulator --rules FILE`), enough to test permission
/// behaviour: `.read` and `.write` per path, `$name` wildcards, and these conditions:
///
/// ```text
/// condition = true | false | "true" | "false" | "auth != null" | "auth.uid == $name" | "auth.uid == 'uid'"
/// ```
///
/// As in Firebase, access cascades: a location is readable (writable) when a rule at it or at any location above
/// grants it, and nothing is granted without a rule. The administrator (`owner`) bypasses the rules.
///
/// ```json
/// {"rules": {"public": {".read": true}, "users": {"$uid": {".read": "auth != null", ".write": "auth.uid == $uid"}}}}
/// ```
package struct ServerRules: Sendable {
    enum Condition: Sendable, Equatable {
        case always
        case never
        case authenticated
        case uidEqualsVariable(String)
        case uidEquals(String)
    }

    final class Level: Sendable {
        let read: Condition?
        let write: Condition?
        let children: [String: Level]
        /// The `$name` child, matching any key.
        let wildcard: (name: String, level: Level)?

        init(read: Condition?, write: Condition?, children: [String: Level], wildcard: (name: String, level: Level)?) {
            self.read = read
            self.write = write
            self.children = children
            self.wildcard = wildcard
        }
    }

    let root: Level

    /// Parses a rules document `{"rules": {...}}`.
    ///
    /// - Throws: ``ServerError`` `invalidData` naming the location and what is not understood.
    package init(json: JSONValue) throws(ServerError) {
        guard case .object(let document) = json, let rules = document["rules"] else {
            throw ServerError(.invalidData, #"a rules file is a JSON object {"rules": {...}}"#)
        }
        root = try Self.level(rules, at: [], depth: 0)
    }

    package init(contentsOf path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw ServerError(.invalidData, "the rules file \(path) is not JSON")
        }
        try self.init(json: json)
    }

    /// Whether `auth` may read (or write) at `path`.
    package func allows(_ path: DatabasePath, write: Bool, auth: ServerAuth) -> Bool {
        var level: Level? = root
        var variables: [String: String] = [:]
        for index in 0...path.count {
            guard let current = level else { return false }
            if let condition = write ? current.write : current.read, Self.holds(condition, auth: auth, variables: variables) {
                return true
            }
            guard index < path.count else { break }
            let key = path.keys[index]
            if let child = current.children[key] {
                level = child
            } else if let wildcard = current.wildcard {
                variables[wildcard.name] = key
                level = wildcard.level
            } else {
                level = nil
            }
        }
        return false
    }

    private static func holds(_ condition: Condition, auth: ServerAuth, variables: [String: String]) -> Bool {
        switch condition {
        case .always: true
        case .never: false
        case .authenticated: auth.isAuthenticated
        case .uidEqualsVariable(let name): auth.uid != nil && auth.uid == variables[name]
        case .uidEquals(let uid): auth.uid == uid
        }
    }

    private static func level(_ json: JSONValue, at path: [String], depth: Int) throws(ServerError) -> Level {
        guard depth <= KeyValidation.maxPathDepth else {
            throw ServerError(.invalidData, "the rules nest deeper than \(KeyValidation.maxPathDepth) levels")
        }
        guard case .object(let members) = json else {
            throw ServerError(.invalidData, "the rules at /\(path.joined(separator: "/")) must be an object")
        }
        var read: Condition?
        var write: Condition?
        var children: [String: Level] = [:]
        var wildcard: (name: String, level: Level)?
        for key in members.keys.sorted() {
            let value = members[key]!
            switch key {
            case ".read": read = try condition(value, at: path, key)
            case ".write": write = try condition(value, at: path, key)
            case ".validate", ".indexOn": continue
            default:
                let child = try level(value, at: path + [key], depth: depth + 1)
                if key.hasPrefix("$") {
                    guard wildcard == nil else {
                        throw ServerError(.invalidData, "the rules at /\(path.joined(separator: "/")) have two wildcards")
                    }
                    wildcard = (key, child)
                } else {
                    children[key] = child
                }
            }
        }
        return Level(read: read, write: write, children: children, wildcard: wildcard)
    }

    private static func condition(_ value: JSONValue, at path: [String], _ key: String) throws(ServerError) -> Condition {
        let text: String
        switch value {
        case .bool(let flag): return flag ? .always : .never
        case .string(let string): text = string.trimmingCharacters(in: .whitespaces)
        default: text = ""
        }
        switch text {
        case "true": return .always
        case "false": return .never
        case "auth != null": return .authenticated
        default: break
        }
        let prefix = "auth.uid == "
        if text.hasPrefix(prefix) {
            let operand = String(text.dropFirst(prefix.count))
            if operand.hasPrefix("$"), operand.count > 1 { return .uidEqualsVariable(operand) }
            if operand.count >= 2, operand.hasPrefix("'"), operand.hasSuffix("'") { return .uidEquals(String(operand.dropFirst().dropLast())) }
        }
        throw ServerError(.invalidData, "the \(key) rule at /\(path.joined(separator: "/")) is not one this server understands (true, false, auth != null, auth.uid == $name, auth.uid == 'uid'): \(text.isEmpty ? "\(value)" : text)")
    }
}
