/// Where a record lives: segment, the byte offset of its frame, its index in the frame, and its encoded size
/// (used for live/dead byte accounting). Locations are returned by commits and by scans; pass them to
/// ``SegmentLog/read(_:)`` and ``SegmentLog/retire(_:)``. Compaction moves records and reports new locations.
public struct RecordLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var segment: UInt32
    public var frameOffset: UInt32
    public var index: UInt32
    /// The record's encoded size in bytes, before compression.
    public var size: UInt32

    public init(segment: UInt32, frameOffset: UInt32, index: UInt32, size: UInt32) {
        self.segment = segment
        self.frameOffset = frameOffset
        self.index = index
        self.size = size
    }

    public static func < (a: RecordLocation, b: RecordLocation) -> Bool {
        (a.segment, a.frameOffset, a.index) < (b.segment, b.frameOffset, b.index)
    }

    public var description: String { "\(segment):\(frameOffset)#\(index)" }
}

/// A record as stored: an application-defined kind, a key, a value, and the log sequence number the log gave it.
public struct Record: Hashable, Sendable {
    public var kind: UInt8
    public var key: [UInt8]
    public var value: [UInt8]
    public var lsn: UInt64
    public var location: RecordLocation

    public init(kind: UInt8, key: [UInt8], value: [UInt8], lsn: UInt64, location: RecordLocation) {
        self.kind = kind
        self.key = key
        self.value = value
        self.lsn = lsn
        self.location = location
    }
}

/// A record seen during a scan, without copying: `key` and `value` point into the decoded frame and are valid
/// only inside the scan's closure. Copy what you keep (``keyBytes``, ``valueBytes``, ``record``).
public struct RecordView {
    public let kind: UInt8
    public let lsn: UInt64
    public let location: RecordLocation
    public let key: UnsafeRawBufferPointer
    public let value: UnsafeRawBufferPointer

    public var keyBytes: [UInt8] { Array(key) }
    public var valueBytes: [UInt8] { Array(value) }
    public var record: Record { Record(kind: kind, key: keyBytes, value: valueBytes, lsn: lsn, location: location) }
}

/// A group of records committed atomically: after a crash either all of them are in the log or none is.
///
/// ```swift
/// var batch = WriteBatch()
/// batch.append(kind: 1, key: Array("users/ada".utf8), value: Array(#"{"name":"Ada"}"#.utf8))
/// batch.append(kind: 1, key: Array("users/bob".utf8), value: Array(#"{"name":"Bob"}"#.utf8))
/// let locations = try log.commit(batch)
/// ```
public struct WriteBatch: Sendable {
    var kinds: [UInt8] = []
    var keys: [[UInt8]] = []
    var values: [[UInt8]] = []
    /// Sum of the encoded record sizes.
    var encodedSize = 0

    public init() {}

    public var count: Int { kinds.count }
    public var isEmpty: Bool { kinds.isEmpty }

    /// Adds a record. Keys must not be empty; limits are checked by ``SegmentLog/commit(_:)``.
    public mutating func append(kind: UInt8, key: [UInt8], value: [UInt8]) {
        kinds.append(kind)
        keys.append(key)
        values.append(value)
        encodedSize += RecordCoding.encodedSize(lsnDelta: UInt64(2 * (kinds.count - 1)), keyCount: key.count, valueCount: value.count)
    }

    public mutating func removeAll() { self = WriteBatch() }
}

enum RecordCoding {
    @inline(__always)
    static func encodedSize(lsnDelta: UInt64, keyCount: Int, valueCount: Int) -> Int {
        1 + varintSize(lsnDelta) + varintSize(UInt64(keyCount)) + varintSize(UInt64(valueCount)) + keyCount + valueCount
    }

    @inline(__always)
    static func append(kind: UInt8, lsnDelta: UInt64, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(kind)
        bytes.appendVarint(lsnDelta)
        bytes.appendVarint(UInt64(key.count))
        bytes.appendVarint(UInt64(value.count))
        bytes.append(contentsOf: key)
        bytes.append(contentsOf: value)
    }
}
