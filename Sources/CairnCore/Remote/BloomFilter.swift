import CairnModel
import Crypto

/// The bloom filter of an existence filter (Firebase's `BloomFilter`): which document names the server still has
/// for a target, with false positives but no false negatives.
///
/// Member `m` sets, for `i` in `0..<hashCount`, the bit `(h1 + i·h2) mod bitCount` (wrapping 64-bit arithmetic),
/// where `h1` and `h2` are the two little-endian 64-bit halves of MD5 of `m`'s full resource name
/// (`projects/{p}/databases/{d}/documents/{path}`). Bit `n` is `bitmap[n / 8] & (1 << (n % 8))`, and the last
/// `padding` bits of the bitmap are unused.
///
/// ```swift
/// let filter = try BloomFilter(BloomFilterParameters(bitmap: bytes, padding: 3, hashCount: 7))
/// filter.mightContain("projects/p/databases/(default)/documents/rooms/a")
/// ```
package struct BloomFilter: Sendable {
    package let bitmap: [UInt8]
    package let hashCount: Int
    /// The number of usable bits: `bitmap.count * 8 - padding`.
    package let bitCount: Int

    /// Checks the server's parameters as Firebase does.
    ///
    /// - Throws: `invalidArgument` for a padding outside 0...7, a negative hash count, a zero hash count with a
    ///   non-empty bitmap, or a padding with an empty bitmap. The caller then treats the filter as absent.
    package init(_ parameters: BloomFilterParameters) throws(FirestoreErrorCode) {
        let (bitmap, padding, hashCount) = (parameters.bitmap, parameters.padding, parameters.hashCount)
        guard (0..<8).contains(padding) else {
            throw FirestoreErrorCode(.invalidArgument, "Invalid bloom filter padding \(padding): it must be in 0...7.")
        }
        guard hashCount >= 0 else {
            throw FirestoreErrorCode(.invalidArgument, "Invalid bloom filter hash count \(hashCount): it must not be negative.")
        }
        guard bitmap.isEmpty || hashCount > 0 else {
            throw FirestoreErrorCode(.invalidArgument, "Invalid bloom filter hash count 0 for a non-empty bitmap.")
        }
        guard !bitmap.isEmpty || padding == 0 else {
            throw FirestoreErrorCode(.invalidArgument, "Invalid bloom filter padding \(padding) for an empty bitmap: it must be 0.")
        }
        self.bitmap = bitmap
        self.hashCount = hashCount
        self.bitCount = bitmap.count * 8 - padding
    }

    /// False when `value` is certainly not a member; true when it probably is. An empty filter contains nothing.
    package func mightContain(_ value: String) -> Bool {
        guard bitCount > 0 else { return false }
        let digest = Array(Insecure.MD5.hash(data: Array(value.utf8)))
        let h1 = Self.littleEndianUInt64(digest, at: 0)
        let h2 = Self.littleEndianUInt64(digest, at: 8)
        let modulus = UInt64(bitCount)
        for i in 0..<UInt64(hashCount) {
            let index = Int((h1 &+ i &* h2) % modulus)
            if bitmap[index / 8] & (1 << (index % 8)) == 0 { return false }
        }
        return true
    }

    /// The name the server hashes for `key` in `database`.
    package static func memberName(of key: DocumentKey, in database: DatabaseID) -> String {
        "\(database)/documents/\(key.path.canonicalString)"
    }

    private static func littleEndianUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { value, i in value | UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
    }
}
