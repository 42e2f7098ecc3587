import CairnModel

/// Splits the record keys of document events (`collection/path/id`, as ``RemoteDocumentEvent/key(_:)`` writes
/// them) into a collection and a document id without parsing the whole path each time: collection paths are
/// parsed and validated once per distinct collection and found again by their bytes (``ByteKeyTable``). Replay
/// and compaction relocations read every document key of the log, so this is their per-record cost.
///
/// ```swift
/// var splitter = DocumentKeySplitter()
/// if let (collection, id) = try splitter.split(record.key) {
///     print(splitter.collections[collection], String(decoding: id, as: UTF8.self))   // rooms/lobby/messages m1
/// } else {
///     let key = try RemoteDocumentEvent.documentKey(from: record.key)   // another shape: the full parse
/// }
/// ```
struct DocumentKeySplitter {
    private var ids = ByteKeyTable()
    /// The collections met so far, by index.
    private(set) var collections: [ResourcePath] = []

    /// The collection index and document id of `key` (its last segment's bytes, a slice of `key`), or nil when the key is not of the common shape (a leading
    /// or trailing `/`, no `/`): the caller parses those with ``RemoteDocumentEvent/documentKey(from:)``.
    ///
    /// - Throws: `dataLoss` when the key is not a document path.
    mutating func split(_ key: UnsafeRawBufferPointer) throws -> (collection: Int, documentID: UnsafeRawBufferPointer)? {
        guard let slash = Self.lastSlash(in: key), key[0] != UInt8(ascii: "/") else { return nil }
        let (collection, isNew) = ids.id(for: UnsafeRawBufferPointer(rebasing: key[..<slash]))
        if isNew {
            // The first key of a collection validates its path for every key that shares it: they differ only
            // in the last segment, which is not empty and holds no `/`.
            collections.append(try RemoteDocumentEvent.documentKey(from: key).collectionPath)
        }
        return (collection, UnsafeRawBufferPointer(rebasing: key[(slash + 1)...]))
    }

    /// ``split(_:)`` for a key whose collection was met before; nil when it was not, or the key is not of the
    /// common shape. Nothing is added or validated.
    func splitKnown(_ key: UnsafeRawBufferPointer) -> (collection: Int, documentID: UnsafeRawBufferPointer)? {
        guard let slash = Self.lastSlash(in: key), key[0] != UInt8(ascii: "/"),
            let collection = ids.existingID(for: UnsafeRawBufferPointer(rebasing: key[..<slash]))
        else { return nil }
        return (collection, UnsafeRawBufferPointer(rebasing: key[(slash + 1)...]))
    }

    /// The offset of the last `/` when it is neither the first nor the last byte, else nil.
    private static func lastSlash(in key: UnsafeRawBufferPointer) -> Int? {
        var i = key.count - 1
        while i > 0 {
            if key[i] == UInt8(ascii: "/") { return i < key.count - 1 ? i : nil }
            i -= 1
        }
        return nil
    }
}
