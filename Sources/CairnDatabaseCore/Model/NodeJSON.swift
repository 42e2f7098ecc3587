/// Converting between nodes and JSON in Firebase's forms: `.value` and `.priority` wrap a leaf with a priority,
/// `.priority` sits beside the keys of an object, `{".sv": ...}` is a deferred server value, arrays become integer
/// keys, and null or an empty object is the empty node. Import is bounded: at most ``maxDepth`` levels of keys.
///
/// ```swift
/// let node = try Node(json: .object(["a": .int(1), ".priority": .string("p")]))
/// node.exportJSON()   // .object(["a": .int(1), ".priority": .string("p")])
/// node.valueJSON()    // .object(["a": .int(1)])
/// ```
extension Node {
    /// Firebase's documented limit on the depth of child nodes.
    package static let maxDepth = 32

    /// The node for a JSON value, validating keys, priorities and numbers.
    ///
    /// - Throws: ``DatabaseCoreError`` (`invalidKey`, `invalidData`) naming the offending path.
    package convenience init(json: JSONValue) throws(DatabaseCoreError) {
        let node = try Node.importJSON(json, priority: nil, path: [], depth: 0)
        self.init(storage: node.storage, priority: node.storedPriority)
    }

    private static func importJSON(_ json: JSONValue, priority inherited: Node?, path: [String], depth: Int) throws(DatabaseCoreError) -> Node {
        if depth > maxDepth {
            throw DatabaseCoreError(.invalidData, "the value at /\(path.prefix(8).joined(separator: "/"))/... nests more than \(maxDepth) levels of keys; Firebase's limit is \(maxDepth)")
        }
        var value = json
        var priority = inherited
        if case .object(let members) = json {
            if let rawPriority = members[".priority"] {
                priority = try importPriority(rawPriority, path: path)
            }
            if let wrapped = members[".value"], wrapped != .null {
                let others = members.keys.filter { $0 != ".value" && $0 != ".priority" }
                if !others.isEmpty {
                    throw DatabaseCoreError(.invalidData, "the value at \(display(path)) has \".value\" beside other keys (\(others.sorted().joined(separator: ", ")))")
                }
                if case .object(let inner) = wrapped, inner[".sv"] == nil {
                    throw DatabaseCoreError(.invalidData, "the \".value\" at \(display(path)) must be a string, number or boolean")
                }
                value = wrapped
            }
        }
        switch value {
        case .null:
            return .empty
        case .bool(let flag):
            return Node(leaf: .bool(flag), priority: priority ?? .empty)
        case .int(let number):
            return Node(leaf: .int(number), priority: priority ?? .empty)
        case .double(let number):
            guard number.isFinite else {
                throw DatabaseCoreError(.invalidData, "the number at \(display(path)) is not finite")
            }
            return Node(leaf: .double(number), priority: priority ?? .empty)
        case .string(let string):
            return Node(leaf: .string(string), priority: priority ?? .empty)
        case .array(let elements):
            var node = Node.empty
            for (offset, element) in elements.enumerated() {
                let child = try importJSON(element, priority: nil, path: path + [String(offset)], depth: depth + 1)
                node = node.updateImmediateChild(String(offset), child)
            }
            return node.updatePriority(priority ?? .empty)
        case .object(let members):
            if members[".sv"] != nil {
                return Node(leaf: .deferred(value), priority: priority ?? .empty)
            }
            var keys: [String] = []
            var map: [String: Node] = [:]
            for (key, member) in members where key != ".priority" && key != ".value" {
                do {
                    try KeyValidation.validateKey(key)
                } catch {
                    throw DatabaseCoreError(.invalidKey, "at \(display(path)): \(error.message)")
                }
                let child = try importJSON(member, priority: nil, path: path + [key], depth: depth + 1)
                if !child.isEmpty {
                    keys.append(key)
                    map[key] = child
                }
            }
            if keys.isEmpty { return .empty }
            keys.sort { KeyOrder.compare($0, $1) < 0 }
            return Node(storage: .children(ChildMap(sorted: keys.map { ($0, map[$0]!) })), priority: priority)
        }
    }

    private static func importPriority(_ json: JSONValue, path: [String]) throws(DatabaseCoreError) -> Node? {
        switch json {
        case .null: return nil
        case .string(let string): return Node(leaf: .string(string))
        case .int(let number): return Node(leaf: .int(number))
        case .double(let number) where number.isFinite: return Node(leaf: .double(number))
        case .object(let members) where members[".sv"] != nil: return Node(leaf: .deferred(json))
        default:
            throw DatabaseCoreError(.invalidData, "the priority at \(display(path)) must be a string, a number or null")
        }
    }

    private static func display(_ path: [String]) -> String { "/" + path.joined(separator: "/") }

    /// The value with priorities (Firebase's export format).
    package func exportJSON() -> JSONValue {
        switch storage {
        case .max:
            return .null
        case .leaf(let value):
            guard let priorityValue = priority.leafValue else { return value.json }
            return .object([".value": value.json, ".priority": priorityValue.json])
        case .children(let map):
            if map.isEmpty { return .null }
            var members: [String: JSONValue] = [:]
            for (key, child) in map { members[key] = child.exportJSON() }
            if let priorityValue = priority.leafValue { members[".priority"] = priorityValue.json }
            return .object(members)
        }
    }

    /// The plain value: no priorities; objects whose keys are all small non-negative integers become arrays (when
    /// the largest key is below twice the number of keys), as Firebase's `val()` does.
    package func valueJSON() -> JSONValue {
        switch storage {
        case .max:
            return .null
        case .leaf(let value):
            return value.json
        case .children(let map):
            if map.isEmpty { return .null }
            var members: [String: JSONValue] = [:]
            var maxIndex = 0
            var allIntegers = true
            for (key, child) in map {
                members[key] = child.valueJSON()
                if allIntegers, let index = Node.arrayIndex(key) {
                    maxIndex = Swift.max(maxIndex, index)
                } else {
                    allIntegers = false
                }
            }
            if allIntegers, maxIndex < 2 * map.count {
                var array = [JSONValue](repeating: .null, count: maxIndex + 1)
                for (key, _) in map { array[Node.arrayIndex(key)!] = members[key]! }
                return .array(array)
            }
            return .object(members)
        }
    }

    /// `0` or a decimal without leading zeros that fits an Int, else nil.
    private static func arrayIndex(_ key: String) -> Int? {
        guard let first = key.utf8.first, key.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        if first == 48 && key.utf8.count > 1 { return nil }
        return Int(key)
    }
}
