/// Firebase's key order (`orderByKey`, and the tie-break of every other index).
///
/// Keys that are 32-bit integers (optional `-`, optional leading zeros, at most 10 digits, within
/// [-2147483648, 2147483647]) come first, in numeric order; equal numbers order the shorter key first ("7" < "07").
/// All other keys follow in UTF-16 code-unit order. ``KeyOrder/minName`` and ``KeyOrder/maxName`` are sentinels
/// below and above every key.
///
/// ```swift
/// KeyOrder.compare("2", "10") < 0            // true: numbers first, numerically
/// KeyOrder.compare("2147483648", "a") < 0    // true: too large for 32 bits, so a string ("2" < "a")
/// ```
package enum KeyOrder {
    package static let minName = "[MIN_NAME]"
    package static let maxName = "[MAX_NAME]"

    /// The key as a 32-bit integer, or nil when Firebase orders it as a string.
    package static func int32Value(of key: String) -> Int32? {
        // Firebase's pattern is `^-?(0*)\d{1,10}$`: any number of leading zeros, then at most 10 digits.
        var utf8 = key.utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        while utf8.count > 1, utf8.first == UInt8(ascii: "0") { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty, utf8.count <= 10 else { return nil }
        var value: Int64 = 0
        for unit in utf8 {
            guard unit >= 48 && unit <= 57 else { return nil }
            value = value * 10 + Int64(unit - 48)
        }
        if negative { value = -value }
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    /// Negative, zero or positive as `a` orders before, with or after `b`.
    package static func compare(_ a: String, _ b: String) -> Int {
        if a == b { return 0 }
        if a == minName || b == maxName { return -1 }
        if b == minName || a == maxName { return 1 }
        let aInt = int32Value(of: a)
        let bInt = int32Value(of: b)
        switch (aInt, bInt) {
        case let (x?, y?):
            if x != y { return x < y ? -1 : 1 }
            return a.utf16.count - b.utf16.count
        case (.some, nil):
            return -1
        case (nil, .some):
            return 1
        case (nil, nil):
            return compareCodeUnits(a, b)
        }
    }

    /// UTF-16 code-unit order, as JavaScript's `<` on strings.
    package static func compareCodeUnits(_ a: String, _ b: String) -> Int {
        if a == b { return 0 }
        return a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : 1
    }
}
