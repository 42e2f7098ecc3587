/// Deeply nested user data for the write-validation tests, built and torn down without recursion: releasing a
/// chain of 100,000 nested dictionaries the ordinary way recurses once per level and would overflow the stack
/// of the test itself.
package enum DeepData {
    /// `levels` nested values around the integer 1: maps `{"n": ...}`, or with `arrays`, maps alternating with
    /// one-element arrays (`[{"n": [1]}]`, never an array directly inside an array). Each map and each array
    /// is one level.
    package static func nested(_ levels: Int, arrays: Bool = false) -> Any {
        var value: Any = 1
        for level in 0..<levels {
            value = arrays && level % 2 == 0 ? [value] as [Any] : ["n": value] as [String: Any]
        }
        return value
    }

    /// How many maps and arrays `value` nests (following the first element or value at each level).
    package static func depth(of value: Any) -> Int {
        var levels = 0
        var current = value
        while true {
            if let map = current as? [String: Any], let inner = map.values.first {
                current = inner
            } else if let array = current as? [Any], let inner = array.first {
                current = inner
            } else {
                return levels
            }
            levels += 1
        }
    }

    /// Releases `value` level by level, outermost first, so that no release recurses.
    package static func release(_ value: inout Any?) {
        while let current = value {
            value = nil
            if let map = current as? [String: Any] {
                value = map.values.first
            } else if let array = current as? [Any] {
                value = array.first
            }
        }
    }

    /// An `Encodable` linked list: each link encodes as a map holding the next one, so a chain of n links is a
    /// document with n - 1 nested maps.
    package final class Chain: Encodable {
        package var next: Chain?

        package init(next: Chain?) { self.next = next }

        /// `links` links, built iteratively.
        package static func of(_ links: Int) -> Chain? {
            var head: Chain?
            for _ in 0..<links { head = Chain(next: head) }
            return head
        }

        /// Releases the chain link by link.
        package static func release(_ head: inout Chain?) {
            while let current = head {
                head = current.next
                current.next = nil
            }
        }
    }
}

/// Deep data shared with blocks that may outlive the call that ran them.
package final class DeepDataHolder: @unchecked Sendable {
    package var value: Any?

    package init(_ value: Any) { self.value = value }
}
