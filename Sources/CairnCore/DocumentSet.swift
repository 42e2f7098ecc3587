import CairnModel

/// The documents of one query result, in the query's order, with lookup by key (Firebase's `DocumentSet`).
///
/// The set is a value: views keep the previous set next to the new one to compute changes. Insertion finds the
/// position by binary search with the query's comparator (`Query.compareDocuments`, which ends with the key,
/// so two documents never compare equal).
///
/// ```swift
/// var set = DocumentSet(query: query)
/// set.insert(document)
/// set.index(of: document.key)   // its position in query order
/// ```
package struct DocumentSet: Sendable, Equatable {
    /// The query whose order the set keeps.
    package let query: Query
    package private(set) var documents: [Document] = []
    private var byKey: [DocumentKey: Document] = [:]

    package init(query: Query) {
        self.query = query
    }

    package var count: Int { documents.count }
    package var isEmpty: Bool { documents.isEmpty }
    package var first: Document? { documents.first }
    package var last: Document? { documents.last }
    package var keys: Set<DocumentKey> { Set(byKey.keys) }

    package func contains(_ key: DocumentKey) -> Bool { byKey[key] != nil }

    package func document(_ key: DocumentKey) -> Document? { byKey[key] }

    /// The position of the document with `key` in query order, or nil when it is not in the set.
    package func index(of key: DocumentKey) -> Int? {
        guard let document = byKey[key] else { return nil }
        return position(of: document)
    }

    /// Adds `document`, replacing the document with the same key (which may move).
    package mutating func insert(_ document: Document) {
        remove(document.key)
        documents.insert(document, at: position(of: document))
        byKey[document.key] = document
    }

    /// Removes the document with `key`; nothing happens when it is not in the set.
    package mutating func remove(_ key: DocumentKey) {
        guard let existing = byKey.removeValue(forKey: key) else { return }
        documents.remove(at: position(of: existing))
    }

    /// The first index whose document does not sort before `document`.
    private func position(of document: Document) -> Int {
        var low = 0
        var high = documents.count
        while low < high {
            let middle = (low + high) / 2
            if query.compareDocuments(documents[middle], document) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    package static func == (a: DocumentSet, b: DocumentSet) -> Bool {
        a.documents.count == b.documents.count
            && zip(a.documents, b.documents).allSatisfy { $0.isSameSnapshotContent(as: $1) }
    }
}

extension Document {
    /// Whether two documents are the same for a snapshot: key, state, version, contents and local/committed
    /// flags (read time is not compared, as in Firebase's spec tests).
    package func isSameSnapshotContent(as other: Document) -> Bool {
        key == other.key && state == other.state && version == other.version && data == other.data
            && hasLocalMutations == other.hasLocalMutations && hasCommittedMutations == other.hasCommittedMutations
    }
}
