/// One entry of a field index for one document: what the cache stores in the index's ordered set (semantics
/// notes §4.3; firebase-android-sdk `SQLiteIndexManager.computeIndexEntries`, LevelDB `index_entries` rows).
///
/// ```text
/// sort-key          = [ array-value ] directional-value document-key
/// array-value       = encode(element, ascending)                  ; only in an index with a contains segment
/// directional-value = encode(field value or key, segment direction) for each directional segment, in order
/// document-key      = IndexKeyEncoder.appendDocumentKey(key, direction of the last directional segment)
/// ```
///
/// Every part is an `IndexKeyEncoder` encoding, and no encoding is a proper prefix of another, so sort keys
/// compare (as unsigned bytes) like the tuples (array element, values…, key) they encode, each column in its
/// direction. The array element comes first so that an `array-contains` scan, which fixes it, reads one
/// contiguous run. The document key comes last and makes sort keys unique per document and element; it runs in
/// the direction of the last directional segment, as the query's implicit `__name__` order does. A sort key
/// never starts with `0xFF` (it starts with a type label, possibly complemented), so `[0xFF]` is above all of
/// them (see ``IndexRange``).
///
/// ```swift
/// let entries = documents.flatMap(index.entries(for:))
///     .sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }   // or insert into an ordered set
/// ```
package struct IndexEntry: Hashable, Sendable, CustomStringConvertible {
    /// The directional segments' encoded values, concatenated in index order.
    package let directionalValue: [UInt8]
    /// The encoded array element, for an index with a contains segment; `nil` otherwise.
    package let arrayValue: [UInt8]?
    /// The document the entry belongs to.
    package let key: DocumentKey
    /// The bytes to order entries by: the array value, the directional value and the encoded document key
    /// (see the grammar above). Unique per entry of one index.
    package let sortKey: [UInt8]

    init(directionalValue: [UInt8], arrayValue: [UInt8]?, key: DocumentKey, encodedKey: [UInt8]) {
        self.directionalValue = directionalValue
        self.arrayValue = arrayValue
        self.key = key
        self.sortKey = (arrayValue ?? []) + directionalValue + encodedKey
    }

    /// Entries are equal when their sort keys are: the sort key encodes every other property.
    package static func == (a: IndexEntry, b: IndexEntry) -> Bool { a.sortKey == b.sortKey }

    package func hash(into hasher: inout Hasher) { hasher.combine(sortKey) }

    package var description: String { "IndexEntry(\(key), \(IndexRange.hex(sortKey)))" }
}

extension FieldIndex {
    /// The document's entries in this index, in sort-key order (semantics notes §4.3):
    /// - none when the document does not exist, is not in the index's collection group, or lacks a field of a
    ///   directional segment (`__name__` segments take the document key);
    /// - with a contains segment: one entry per distinct array element (elements that encode alike, such as
    ///   `1` and `1.0`, share one), and none when the field is missing, not an array, or an empty array;
    /// - otherwise exactly one entry.
    ///
    /// ```swift
    /// let author = FieldPath(segments: ["author"])
    /// let byAuthor = try FieldIndex(collectionGroup: "posts", segments: [.init(author, .ascending)])
    /// byAuthor.entries(for: post).count   // 1, or 0 when the post has no author
    /// ```
    package func entries(for document: Document) -> [IndexEntry] {
        guard document.exists, BytewiseOrder.equal(document.key.collectionGroup, collectionGroup) else { return [] }
        var directional = IndexKeyEncoder()
        for segment in directionalSegments {
            if segment.field.isDocumentKey {
                directional.appendDocumentKey(document.key, descending: segment.isDescending)
            } else if let value = document.data.value(at: segment.field) {
                directional.append(value, descending: segment.isDescending)
            } else {
                return []
            }
        }
        var keyEncoder = IndexKeyEncoder()
        keyEncoder.appendDocumentKey(document.key, descending: directionalSegments.last?.isDescending ?? false)
        guard let arraySegment else {
            return [
                IndexEntry(
                    directionalValue: directional.bytes, arrayValue: nil, key: document.key,
                    encodedKey: keyEncoder.bytes)
            ]
        }
        guard let elements = document.data.value(at: arraySegment.field)?.arrayElements else { return [] }
        var encodedElements: Set<[UInt8]> = []
        for element in elements {
            var encoder = IndexKeyEncoder()
            encoder.append(element)
            encodedElements.insert(encoder.bytes)
        }
        return encodedElements.map {
            IndexEntry(
                directionalValue: directional.bytes, arrayValue: $0, key: document.key, encodedKey: keyEncoder.bytes)
        }.sorted { BytewiseOrder.compare($0.sortKey, $1.sortKey) < 0 }
    }
}
