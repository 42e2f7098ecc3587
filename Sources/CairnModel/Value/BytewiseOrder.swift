#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Three-way comparison and equality of byte sequences and of strings by their UTF-8 bytes.
///
/// Firestore orders and compares strings by their UTF-8 encoding, code unit by code unit. Swift's `String`
/// `==` and `<` do not: they compare by Unicode canonical equivalence, so `"é"` (U+00E9) equals `"e\u{301}"`
/// in Swift but not in Firestore. Every string comparison in the value model goes through this type.
///
/// ```swift
/// BytewiseOrder.compare("\u{FFFF}", "\u{10000}")  // -1: EF BF BF < F0 90 80 80 (UTF-16 would say +1)
/// BytewiseOrder.equal("é", "e\u{301}")           // false
/// ```
enum BytewiseOrder {
    /// Compares two byte buffers lexicographically, a proper prefix sorting first; returns -1, 0 or 1.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let result = memcmp(a.baseAddress!, b.baseAddress!, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Compares two byte arrays lexicographically, a proper prefix sorting first; returns -1, 0 or 1.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { a in b.withUnsafeBytes { b in compare(a, b) } }
    }

    /// Compares two strings by their UTF-8 bytes; returns -1, 0 or 1.
    static func compare(_ a: String, _ b: String) -> Int {
        withUTF8(a) { a in withUTF8(b) { b in compare(a, b) } }
    }

    /// True when the two strings have identical UTF-8 bytes (no Unicode normalisation).
    static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && compare(a, b) == 0
    }

    /// Feeds the string's UTF-8 bytes, delimited by their count, to `hasher` (consistent with ``equal(_:_:)``).
    static func hash(_ string: String, into hasher: inout Hasher) {
        withUTF8(string) { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: bytes)
        }
    }

    /// The keys of `fields` in ascending UTF-8 order: the order Firestore uses for map entries.
    static func sortedKeys(_ fields: [String: Value]) -> [String] {
        let keys = Array(fields.keys)
        return sortedPositions(keys).map { keys[$0] }
    }

    /// The positions of `strings` in ascending UTF-8 order of the strings.
    ///
    /// Sorting integers keyed by each string's first 8 bytes (big-endian, zero-padded) is several times faster
    /// than sorting the strings: most comparisons are decided by the prefixes, without reference counting or
    /// `memcmp`; only equal prefixes fall back to comparing the whole strings.
    static func sortedPositions(_ strings: [String]) -> [Int] {
        var entries = strings.indices.map { (prefix: prefix(strings[$0]), position: $0) }
        entries.sort { a, b in
            a.prefix != b.prefix ? a.prefix < b.prefix : compare(strings[a.position], strings[b.position]) < 0
        }
        return entries.map(\.position)
    }

    private static func prefix(_ string: String) -> UInt64 {
        withUTF8(string) { bytes in
            var prefix: UInt64 = 0
            for index in 0..<8 {
                prefix = prefix << 8 | (index < bytes.count ? UInt64(bytes[index]) : 0)
            }
            return prefix
        }
    }

    /// Calls `body` with the string's UTF-8 bytes: in place for native strings (no copy, unlike a `var` copy
    /// and `withUTF8`, which costs a retain), through a temporary array for the rare bridged ones.
    static func withUTF8<Result>(_ string: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = string.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(string.utf8).withUnsafeBytes(body)
    }
}
