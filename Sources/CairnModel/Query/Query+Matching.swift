extension Query {
    /// Whether the document belongs in the query's results, limit aside (SDK `Query::Matches`): it exists, it
    /// is at the query's path, it has every field of ``normalizedOrderBy``, it satisfies every filter, and it
    /// lies within the cursors.
    ///
    /// The order-by rule means a query with an implicit order — `a > 1 || b == 1` is ordered by `a` — does not
    /// match a document `{b: 1}` that lacks `a`, as the server does not return it either.
    ///
    /// ```swift
    /// let q = try Query(path: ResourcePath(segments: ["rooms"]))
    ///     .ordered(by: OrderBy(FieldPath(segments: ["size"])))
    /// q.matches(roomWithSize)       // true
    /// q.matches(roomWithoutSize)    // false: a document missing an order-by field never matches
    /// q.matches(messageInARoom)     // false: rooms/r1/messages/m1 is not a direct child of rooms
    /// ```
    package func matches(_ document: Document) -> Bool {
        document.exists && matchesPathAndCollectionGroup(document.key) && matchesOrderBy(document)
            && filters.allSatisfy { $0.matches(document) } && matchesBounds(document)
    }

    /// Whether a document with this key is in the query's scope: the document itself for a document query,
    /// a document of the group anywhere under ``path`` for a collection group query, and a direct child of
    /// ``path`` for a collection query.
    package func matchesPathAndCollectionGroup(_ key: DocumentKey) -> Bool {
        if let collectionGroup {
            return key.collectionGroup.utf8.elementsEqual(collectionGroup.utf8) && path.isPrefix(of: key.path)
        }
        if path.isDocumentPath {
            return path == key.path
        }
        return key.path.count == path.count + 1 && path.isPrefix(of: key.path)
    }

    /// True when the document has a value for every normalized order-by field (`__name__` always exists).
    func matchesOrderBy(_ document: Document) -> Bool {
        normalizedOrderBy.allSatisfy { $0.field.isDocumentKey || document.data.value(at: $0.field) != nil }
    }

    /// True when the document lies within ``startAt`` and ``endAt``.
    func matchesBounds(_ document: Document) -> Bool {
        if let startAt, !startAt.sortsBefore(document, orderedBy: normalizedOrderBy) { return false }
        if let endAt, !endAt.sortsAfter(document, orderedBy: normalizedOrderBy) { return false }
        return true
    }

    /// Compares two documents in query order (``normalizedOrderBy``, which always ends with `__name__`):
    /// -1 when `a` comes first, 0 only for the same key, 1 otherwise. Meant for documents that
    /// ``matches(_:)``; a document missing an order-by field sorts first on that field.
    ///
    /// ```swift
    /// let sorted = documents.sorted { query.compareDocuments($0, $1) < 0 }
    /// ```
    package func compareDocuments(_ a: Document, _ b: Document) -> Int {
        for order in normalizedOrderBy {
            let comparison = order.compare(a, b)
            if comparison != 0 { return comparison }
        }
        return 0
    }

    /// The query's results among `documents`: those that match, in query order, cut to the limit — the first
    /// `limit` documents, or for `limit(toLast:)` the last `limit` ones (still in query order). This is what a
    /// query answers from the cache.
    ///
    /// ```swift
    /// let top3 = try query.ordered(by: OrderBy(score, descending: true)).limited(to: 3)
    /// top3.results(from: cachedDocuments)   // the three highest scores, highest first
    /// ```
    package func results(from documents: some Sequence<Document>) -> [Document] {
        let sorted = documents.filter(matches).sorted { compareDocuments($0, $1) < 0 }
        guard let limit, sorted.count > limit else { return sorted }
        return limitType == .first ? Array(sorted.prefix(limit)) : Array(sorted.suffix(limit))
    }
}
