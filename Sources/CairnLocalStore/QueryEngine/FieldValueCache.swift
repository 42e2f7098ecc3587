import CairnModel

/// A bounded cache of decoded field values for collection scans: for a collection and a field path, the value
/// each cached document has there (or that it has none). A scan that finds every field it filters or orders on
/// here tests its filters without reading the log at all, and reads and decodes only the documents that pass
/// (Docs/LocalStore.md §7). Firebase's SDKs re-read and re-decode every document of the collection instead.
///
/// **Invalidation by construction.** Values are keyed by the ``EventReference`` of the document's event, not by
/// the document: an event never changes once written, and every change to a document — a remote update, an
/// acknowledged write, an eviction, a compaction that moves the record — gives the view a new reference (or no
/// entry at all). A stale value is therefore never found; it only takes room until the next scan of its
/// collection prunes it (``Column/retain(_:)``) or the bound evicts its column. Documents with pending writes
/// are not scanned from here at all (their local view is read instead).
///
/// **Bound.** Each value is charged ``entryOverhead`` bytes (the dictionary slot) plus what it holds out of
/// line (long strings, bytes, arrays, maps); when the total would pass ``capacity``, the columns used least
/// recently are dropped whole. A column larger than the capacity is not kept. Capacity 0 turns the cache off.
///
/// ```swift
/// var cache = FieldValueCache(capacity: 1 << 20)
/// let key = FieldValueCache.ColumnKey(collection: orders, field: region)
/// var column = cache.take(key)
/// column.insert(.string("r42"), for: reference)
/// cache.put(column, for: key)
/// cache.bytes        // 64 + what "r42" holds out of line (nothing: short strings are inline)
/// ```
struct FieldValueCache {
    /// A collection and a field of its documents.
    struct ColumnKey: Hashable {
        var collection: ResourcePath
        var field: FieldPath
    }

    /// One field of one collection's documents, by event reference; `.some(nil)` means "no such field".
    struct Column {
        private(set) var values: [EventReference: Value?] = [:]
        private(set) var bytes = 0
        fileprivate var lastUse: UInt64 = 0

        /// The cached value for the document whose event is `reference`: nil when not cached, `.some(nil)`
        /// when the document has no value at the field.
        @inline(__always)
        func value(for reference: EventReference) -> Value?? { values[reference] }

        mutating func insert(_ value: Value?, for reference: EventReference) {
            if let previous = values.updateValue(value, forKey: reference) {
                bytes -= FieldValueCache.cost(of: previous)
            }
            bytes += FieldValueCache.cost(of: value)
        }

        /// Keeps only the values of `references` (the collection's live documents), dropping stale ones.
        mutating func retain(_ references: [EventReference]) {
            var kept: [EventReference: Value?] = [:]
            kept.reserveCapacity(references.count)
            var keptBytes = 0
            for reference in references {
                guard let value = values[reference] else { continue }
                kept[reference] = value
                keptBytes += FieldValueCache.cost(of: value)
            }
            (values, bytes) = (kept, keptBytes)
        }
    }

    /// The default bound: 32 MiB, as much as SegmentLog's default frame cache. About 500,000 short values
    /// (numbers, timestamps, strings up to 15 bytes), that is ten filtered or ordered fields of a 50,000-document
    /// collection.
    static let defaultCapacity = 32 << 20
    /// What one cached value costs beyond the bytes it holds out of line: its key, the value's 24 bytes and
    /// the dictionary's spare room.
    static let entryOverhead = 64

    /// The most bytes the cache holds; lowering it evicts at once.
    var capacity: Int {
        didSet { evict(toFree: 0) }
    }
    /// Bytes charged to the columns in the cache (not to columns taken out by a running scan).
    private(set) var bytes = 0
    private var columns: [ColumnKey: Column] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int = defaultCapacity) { self.capacity = capacity }

    /// The number of columns cached.
    var columnCount: Int { columns.count }

    /// Takes `key`'s column out of the cache (an empty one when none is cached), so a scan can fill it
    /// without copying; give it back with ``put(_:for:)``.
    mutating func take(_ key: ColumnKey) -> Column {
        guard let column = columns.removeValue(forKey: key) else { return Column() }
        bytes -= column.bytes
        return column
    }

    /// Puts a column back as the most recently used, evicting the least recently used columns to make room;
    /// a column that does not fit even in an empty cache is dropped.
    mutating func put(_ column: Column, for key: ColumnKey) {
        guard column.bytes <= capacity, capacity > 0, !column.values.isEmpty else { return }
        evict(toFree: column.bytes)
        var column = column
        clock += 1
        column.lastUse = clock
        columns[key] = column
        bytes += column.bytes
    }

    /// Drops every column.
    mutating func removeAll() {
        columns.removeAll()
        bytes = 0
    }

    /// Evicts least recently used columns until `needed` more bytes fit under the capacity.
    private mutating func evict(toFree needed: Int) {
        while bytes + needed > capacity, let oldest = columns.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            bytes -= oldest.value.bytes
            columns[oldest.key] = nil
        }
    }

    /// The bytes one cached value is charged.
    static func cost(of value: Value?) -> Int {
        entryOverhead + (value.map(outOfLineBytes) ?? 0)
    }

    /// Heap bytes a value holds beyond its 24-byte inline form (strings of up to 15 UTF-8 bytes are inline).
    private static func outOfLineBytes(_ value: Value) -> Int {
        switch value {
        case .null, .boolean, .integer, .double, .timestamp, .geoPoint:
            return 0
        case .string(let string):
            return string.utf8.count > 15 ? 32 + string.utf8.count : 0
        case .bytes(let bytes):
            return 32 + bytes.count
        case .reference(let database, let key):
            return 96 + database.projectID.utf8.count + database.databaseID.utf8.count + key.path.segments.count * 24
        case .serverTimestamp(_, let previous):
            return 48 + (previous.map { 24 + outOfLineBytes($0) } ?? 0)
        case .array(let values):
            return 32 + values.reduce(0) { $0 + 24 + outOfLineBytes($1) }
        case .map(let object):
            return 48 + object.fields.reduce(0) { $0 + 64 + $1.key.utf8.count + outOfLineBytes($1.value) }
        }
    }
}
