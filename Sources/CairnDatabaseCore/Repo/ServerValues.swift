import Foundation

/// Resolves server values (`{".sv": "timestamp"}`, `{".sv": {"increment": n}}`) locally, as Firebase does for
/// optimistic writes: the timestamp is the local clock plus the server time offset, an increment adds to the
/// current local number (a missing or non-number value counts as 0). Unknown server values are left as they are.
///
/// ```swift
/// let now = ServerValues.timestamp(offset: 1_500)          // local ms + 1.5 s
/// let node = ServerValues.resolve(written, existing: local, timestamp: now)
/// ```
package enum ServerValues {
    /// The server time estimate in milliseconds since 1970.
    package static func timestamp(offset: Double, now: Date = Date()) -> Int64 {
        Int64((now.timeIntervalSince1970 * 1000 + offset).rounded(.down))
    }

    /// `node` with its server values resolved; `existing` is the current local value at the same path.
    package static func resolve(_ node: Node, existing: Node, timestamp: Int64) -> Node {
        let priority = resolvePriority(node.priority, timestamp: timestamp)
        if let leaf = node.leafValue {
            guard case .deferred(let json) = leaf else { return priority === node.priority ? node : node.updatePriority(priority) }
            return Node(leaf: resolveLeaf(json, existing: existing, timestamp: timestamp) ?? leaf, priority: priority)
        }
        var result = node
        for key in node.childKeys {
            let child = node.immediateChild(key)
            let resolved = resolve(child, existing: existing.immediateChild(key), timestamp: timestamp)
            if resolved !== child { result = result.updateImmediateChild(key, resolved) }
        }
        return priority === node.priority ? result : result.updatePriority(priority)
    }

    private static func resolvePriority(_ priority: Node, timestamp: Int64) -> Node {
        guard case .deferred(let json)? = priority.leafValue,
              let resolved = resolveLeaf(json, existing: .empty, timestamp: timestamp) else { return priority }
        return Node(leaf: resolved)
    }

    private static func resolveLeaf(_ json: JSONValue, existing: Node, timestamp: Int64) -> LeafValue? {
        guard case .object(let members) = json, let sv = members[".sv"] else { return nil }
        if sv == .string("timestamp") { return .int(timestamp) }
        guard case .object(let operation) = sv, let delta = operation["increment"] else { return nil }
        let current: LeafValue
        switch existing.leafValue {
        case .int(let value)?: current = .int(value)
        case .double(let value)?: current = .double(value)
        default: current = .int(0)
        }
        switch (current, delta) {
        case (.int(let a), .int(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .double(Double(a) + Double(b)) : .int(sum)
        case (.int(let a), .double(let b)): return .double(Double(a) + b)
        case (.double(let a), .int(let b)): return .double(a + Double(b))
        case (.double(let a), .double(let b)): return .double(a + b)
        default: return nil
        }
    }
}
