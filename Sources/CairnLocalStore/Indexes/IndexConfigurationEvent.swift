import CairnModel

// The value of an `indexConfigurationChanged` event (kind 9, record key "indexes"): the whole field-index
// configuration — the indexes of `setIndexConfiguration` and of automatic creation — and the auto-creation
// switch. Each event replaces the previous one; the newest (highest sequence number) wins on replay. Index
// entries are not stored (Docs/LocalStore.md §8). Primitives as in EventBytes.swift:
//
//   value    := formatVersion u8 (1) | flags u8 (bit 0: auto-creation enabled) | count varint | index*
//   index    := collectionGroup string | segmentCount varint | segment*
//   segment  := kind u8 (0 ascending, 1 descending, 2 contains) | fieldSegmentCount varint | string*

/// The field-index configuration as stored in the log.
///
/// ```swift
/// let event = IndexConfigurationEvent(indexes: [byAuthor], autoCreationEnabled: false).encoded
/// let back = try event.value.withUnsafeBytes(IndexConfigurationEvent.decode)
/// ```
struct IndexConfigurationEvent: Equatable {
    static let formatVersion: UInt8 = 1
    static let recordKey = Array("indexes".utf8)

    var indexes: [FieldIndex]
    var autoCreationEnabled: Bool

    var encoded: EncodedEvent {
        var writer = EventWriter()
        writer.byte(Self.formatVersion)
        writer.byte(autoCreationEnabled ? 1 : 0)
        writer.varint(UInt64(indexes.count))
        for index in indexes {
            writer.string(index.collectionGroup)
            writer.varint(UInt64(index.segments.count))
            for segment in index.segments {
                writer.byte(Self.code(of: segment.kind))
                writer.varint(UInt64(segment.field.segments.count))
                for name in segment.field.segments { writer.string(name) }
            }
        }
        return EncodedEvent(kind: .indexConfigurationChanged, key: Self.recordKey, value: writer.bytes)
    }

    static func decode(_ value: UnsafeRawBufferPointer) throws -> IndexConfigurationEvent {
        var reader = EventReader(value, event: "index configuration event")
        try reader.formatVersion(formatVersion)
        let flags = try reader.byte("flags")
        // An index takes at least 3 bytes: a group length, one character, a segment count.
        let count = try reader.count("index count", minimumBytesPerItem: 3)
        var indexes: [FieldIndex] = []
        for _ in 0..<count {
            let group = try reader.string("collection group")
            let segmentCount = try reader.count("segment count", minimumBytesPerItem: 2)
            var segments: [FieldIndex.Segment] = []
            for _ in 0..<segmentCount {
                let kind = try kind(of: try reader.byte("segment kind"), reader)
                let nameCount = try reader.count("field path length", minimumBytesPerItem: 1)
                var names: [String] = []
                for _ in 0..<nameCount { names.append(try reader.string("field name")) }
                segments.append(FieldIndex.Segment(FieldPath(segments: names), kind))
            }
            do {
                indexes.append(try FieldIndex(collectionGroup: group, segments: segments))
            } catch {
                throw reader.damaged("an index is invalid (\(error.message))")
            }
        }
        try reader.expectEnd()
        return IndexConfigurationEvent(indexes: indexes, autoCreationEnabled: flags & 1 != 0)
    }

    private static func code(of kind: FieldIndex.Segment.Kind) -> UInt8 {
        switch kind {
        case .ascending: 0
        case .descending: 1
        case .contains: 2
        }
    }

    private static func kind(of code: UInt8, _ reader: EventReader) throws -> FieldIndex.Segment.Kind {
        switch code {
        case 0: return .ascending
        case 1: return .descending
        case 2: return .contains
        default: throw reader.damaged("unknown segment kind \(code)")
        }
    }
}
