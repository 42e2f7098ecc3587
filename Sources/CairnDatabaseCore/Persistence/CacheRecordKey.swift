/// The key of an id record (`q`, `k` or `w` and an id) or of the globals record, as the cache's in-memory views
/// hold it: a letter and an integer, hashed without building the record's byte key (replaying 200,000 tracked
/// queries hashes one per record).
///
/// ```swift
/// CacheRecordKey.query(7) == CacheRecordKey(CacheRecord.queryKey(7))   // true
/// ```
struct CacheRecordKey: Hashable {
    let prefix: UInt8
    let id: UInt64

    static func query(_ id: UInt64) -> CacheRecordKey { CacheRecordKey(prefix: UInt8(ascii: "q"), id: id) }
    static func keys(_ id: UInt64) -> CacheRecordKey { CacheRecordKey(prefix: UInt8(ascii: "k"), id: id) }
    static func write(_ id: UInt64) -> CacheRecordKey { CacheRecordKey(prefix: UInt8(ascii: "w"), id: id) }
    /// The globals record's key (its byte key is the word `globals`; no id record has the letter `g`).
    static let globals = CacheRecordKey(prefix: UInt8(ascii: "g"), id: 0)

    private init(prefix: UInt8, id: UInt64) {
        self.prefix = prefix
        self.id = id
    }

    /// The key a record's byte key names; nil for a server key (or bytes that are no record's key).
    init?(_ bytes: [UInt8]) {
        if bytes == CacheRecord.globalsKey {
            self = .globals
        } else if bytes.count == 9, let first = bytes.first, "qkw".utf8.contains(first) {
            self.init(prefix: first, id: bytes.dropFirst().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        } else {
            return nil
        }
    }
}
