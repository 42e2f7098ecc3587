import CairnModel

// The value of a `remoteDocumentChanged` event. A fixed header comes first so replay learns everything the
// views need without decoding the body:
//
//   value  := formatVersion u8 (1) | state u8 (Document.State) | flags u8 (bit 0: hasCommittedMutations)
//             | version.seconds i64 | version.nanos i32 | readTime.seconds i64 | readTime.nanos i32 | body
//   body   := DocumentCodec bytes of the document's fields (empty unless state is `found`)
//
// Integers are little-endian. The record key is the document path, segments joined with "/", in UTF-8.

/// The header of a `remoteDocumentChanged` event.
struct RemoteDocumentHeader: Equatable {
    static let formatVersion: UInt8 = 1
    static let size = 27

    var state: Document.State
    var version: Timestamp
    var readTime: Timestamp
    var hasCommittedMutations: Bool

    func encode(into bytes: inout [UInt8]) {
        bytes.append(Self.formatVersion)
        bytes.append(state.rawValue)
        bytes.append(hasCommittedMutations ? 1 : 0)
        appendTimestamp(version, to: &bytes)
        appendTimestamp(readTime, to: &bytes)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> RemoteDocumentHeader {
        guard bytes.count >= size else { throw LocalStoreError.dataLoss("a remote-document event is \(bytes.count) bytes, shorter than its header") }
        guard bytes[0] == formatVersion else {
            throw LocalStoreError.dataLoss("a remote-document event has format version \(bytes[0]); this code reads \(formatVersion)")
        }
        guard let state = Document.State(rawValue: bytes[1]) else { throw LocalStoreError.dataLoss("unknown document state \(bytes[1])") }
        return RemoteDocumentHeader(
            state: state, version: loadTimestamp(bytes, at: 3), readTime: loadTimestamp(bytes, at: 15),
            hasCommittedMutations: bytes[2] & 1 != 0)
    }
}

enum RemoteDocumentEvent {
    static func key(_ key: DocumentKey) -> [UInt8] { Array(key.path.canonicalString.utf8) }

    static func documentKey(from bytes: UnsafeRawBufferPointer) throws -> DocumentKey {
        do {
            return try DocumentKey(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw LocalStoreError.dataLoss("an event names an invalid document path: \(error.message)")
        }
    }

    static func encode(_ document: Document) -> EncodedEvent {
        var value: [UInt8] = []
        RemoteDocumentHeader(
            state: document.state, version: document.version, readTime: document.readTime,
            hasCommittedMutations: document.hasCommittedMutations
        ).encode(into: &value)
        if document.state == .found { value += DocumentCodec.encode(document.data) }
        return EncodedEvent(kind: .remoteDocumentChanged, key: key(document.key), value: value)
    }

    /// A `documentEvicted` event: the document leaves the cache (its value is empty).
    static func evicted(_ key: DocumentKey) -> EncodedEvent {
        EncodedEvent(kind: .documentEvicted, key: Self.key(key), value: [])
    }

    /// Whether the document in an event's value passes every filter, reading only the filtered fields
    /// (``DocumentCodec/value(at:in:)``); a deleted or unknown document has no fields and passes none.
    static func passes(_ filters: [FieldFilter], value: UnsafeRawBufferPointer, key: DocumentKey) throws -> Bool {
        let header = try RemoteDocumentHeader.decode(value)
        let data = UnsafeRawBufferPointer(rebasing: value[RemoteDocumentHeader.size...])
        for filter in filters {
            let fieldValue: Value?
            do {
                fieldValue = header.state == .found ? try DocumentCodec.value(at: filter.field, in: data) : nil
            } catch {
                throw LocalStoreError.dataLoss("document \(key) cannot be decoded: \(error.message)")
            }
            if !filter.matches(fieldValue: fieldValue) { return false }
        }
        return true
    }

    /// The whole document from an event's value.
    static func decode(_ value: UnsafeRawBufferPointer, key: DocumentKey) throws -> Document {
        let header = try RemoteDocumentHeader.decode(value)
        var data = ObjectValue()
        if header.state == .found {
            do {
                data = try DocumentCodec.decode(UnsafeRawBufferPointer(rebasing: value[RemoteDocumentHeader.size...]))
            } catch {
                throw LocalStoreError.dataLoss("document \(key) cannot be decoded: \(error.message)")
            }
        }
        return Document(
            key: key, state: header.state, version: header.version, readTime: header.readTime, data: data,
            hasCommittedMutations: header.hasCommittedMutations)
    }
}

@inline(__always)
func appendTimestamp(_ timestamp: Timestamp, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: timestamp.seconds.littleEndian) { bytes.append(contentsOf: $0) }
    withUnsafeBytes(of: timestamp.nanoseconds.littleEndian) { bytes.append(contentsOf: $0) }
}

@inline(__always)
func loadTimestamp(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Timestamp {
    Timestamp(
        seconds: Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)),
        nanoseconds: Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int32.self)))
}
