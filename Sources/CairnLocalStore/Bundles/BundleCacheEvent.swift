import CairnModel

// The values of the bundle cache's events (Firebase's `BundleCache`: `SaveBundleMetadata`, `SaveNamedQuery`).
// Each event replaces the previous one of its key; replay keeps the newest (highest sequence number).
// Primitives as in EventBytes.swift:
//
//   bundleSaved      (kind 10, key "bundle/" + bundle id):
//                    formatVersion u8 (1) | createTime timestamp | version varint | totalDocuments varint
//                    | totalBytes varint
//   namedQuerySaved  (kind 11, key "namedQuery/" + query name):
//                    formatVersion u8 (1) | readTime timestamp | query (QueryCodec) to the end

/// A loaded bundle as the cache remembers it (Firebase's `BundleMetadata`): a bundle with the same id and a
/// creation time not newer than this one is not applied again.
package struct BundleMetadata: Equatable, Sendable {
    package var id: String
    package var createTime: Timestamp
    /// The bundle format version the server SDK wrote.
    package var version: Int
    package var totalDocuments: Int
    /// The bytes of the bundle after its metadata element.
    package var totalBytes: Int

    package init(id: String, createTime: Timestamp, version: Int, totalDocuments: Int, totalBytes: Int) {
        self.id = id
        self.createTime = createTime
        self.version = version
        self.totalDocuments = totalDocuments
        self.totalBytes = totalBytes
    }
}

/// A query a bundle saved under a name (Firebase's `NamedQuery`), read back by `getQuery(named:)`.
package struct NamedQuery: Equatable, Sendable {
    package var name: String
    /// The query, with its limit type (`limitToLast` queries keep it).
    package var query: Query
    /// The time the bundle's server read the query's results.
    package var readTime: Timestamp

    package init(name: String, query: Query, readTime: Timestamp) {
        self.name = name
        self.query = query
        self.readTime = readTime
    }
}

/// The encodings of `bundleSaved` and `namedQuerySaved`.
///
/// ```swift
/// let event = BundleCacheEvent.bundleSaved(metadata).encoded
/// let back = try event.key.withUnsafeBytes { key in
///     try event.value.withUnsafeBytes { try BundleCacheEvent.decode(.bundleSaved, key: key, value: $0) }
/// }
/// ```
enum BundleCacheEvent: Equatable {
    case bundleSaved(BundleMetadata)
    case namedQuerySaved(NamedQuery)

    static let formatVersion: UInt8 = 1
    static let bundlePrefix = Array("bundle/".utf8)
    static let namedQueryPrefix = Array("namedQuery/".utf8)

    var encoded: EncodedEvent {
        var writer = EventWriter()
        writer.byte(Self.formatVersion)
        switch self {
        case .bundleSaved(let metadata):
            writer.timestamp(metadata.createTime)
            writer.varint(UInt64(max(0, metadata.version)))
            writer.varint(UInt64(max(0, metadata.totalDocuments)))
            writer.varint(UInt64(max(0, metadata.totalBytes)))
            return EncodedEvent(kind: .bundleSaved, key: Self.bundlePrefix + Array(metadata.id.utf8), value: writer.bytes)
        case .namedQuerySaved(let named):
            writer.timestamp(named.readTime)
            writer.rest(QueryCodec.encode(named.query))
            return EncodedEvent(
                kind: .namedQuerySaved, key: Self.namedQueryPrefix + Array(named.name.utf8), value: writer.bytes)
        }
    }

    /// Decodes an event of kind `bundleSaved` or `namedQuerySaved`; damaged bytes are `dataLoss`.
    static func decode(_ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> BundleCacheEvent {
        switch kind {
        case .bundleSaved:
            let id = try name(in: key, of: kind)
            var reader = EventReader(value, event: "bundleSaved event of bundle \(id)")
            try reader.formatVersion(formatVersion)
            let createTime = try reader.timestamp("create time")
            let version = try reader.integer("version")
            let totalDocuments = try reader.integer("total documents")
            let totalBytes = try reader.integer("total bytes")
            try reader.expectEnd()
            return .bundleSaved(BundleMetadata(
                id: id, createTime: createTime, version: version, totalDocuments: totalDocuments, totalBytes: totalBytes))
        case .namedQuerySaved:
            let name = try name(in: key, of: kind)
            var reader = EventReader(value, event: "namedQuerySaved event of query \(name)")
            try reader.formatVersion(formatVersion)
            let readTime = try reader.timestamp("read time")
            let query: Query
            do {
                query = try QueryCodec.decode(reader.rest())
            } catch {
                throw reader.damaged("the query is damaged (\(error.message))")
            }
            return .namedQuerySaved(NamedQuery(name: name, query: query, readTime: readTime))
        default:
            throw LocalStoreError.dataLoss("event kind \(kind) is not a bundle cache event")
        }
    }

    /// The bundle id or query name after the key's prefix.
    static func name(in key: UnsafeRawBufferPointer, of kind: EventKind) throws -> String {
        let prefix = kind == .bundleSaved ? bundlePrefix : namedQueryPrefix
        guard key.count >= prefix.count, key.prefix(prefix.count).elementsEqual(prefix),
            let name = String(validating: UnsafeRawBufferPointer(rebasing: key[prefix.count...]), as: UTF8.self)
        else {
            throw LocalStoreError.dataLoss(
                "a \(kind) record's key is not \(String(decoding: prefix, as: UTF8.self)) followed by UTF-8 text")
        }
        return name
    }
}

extension EventReader {
    /// A varint that fits an `Int` (counts and sizes).
    fileprivate mutating func integer(_ what: String) throws -> Int {
        let value = try varint(what)
        guard value <= UInt64(Int.max) else { throw damaged("\(what) \(value) is out of range") }
        return Int(value)
    }
}
