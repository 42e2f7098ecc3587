import CairnModel

/// Reading many cached documents at once (the query engine's scans). Two things keep it cheap:
/// - **log order** — the documents are read sorted by where their events sit in the log (segment, frame,
///   record), so each compressed frame is decompressed once even when the log is larger than the frame cache,
///   instead of once per document in dictionary order;
/// - **filters before decoding** — the query's top-level field filters are tested on the encoded bytes with
///   single-field reads (``DocumentCodec/value(at:in:)``, about ten times cheaper than a full decode), and only
///   the documents that pass every one are decoded. The filters are ANDed into the query, so a document that
///   fails one cannot match: the answer is the same, with fewer decodes.
extension LocalStore {
    /// The filters a scan tests before decoding: the query's top-level field filters, except those on
    /// `__name__` (they test the key, which needs no decoding) — an OR tree is left to `query.matches`.
    static func prefilters(of query: Query) -> [FieldFilter] {
        query.filters.compactMap { filter in
            guard case .field(let fieldFilter) = filter, !fieldFilter.field.isDocumentKey else { return nil }
            return fieldFilter
        }
    }

    /// The existing documents among `candidates` that pass `filters`, read in log order; every candidate read
    /// counts in the report's `documentsRead`, every decoded one in `documentsDecoded`.
    ///
    /// ```swift
    /// let documents = try scanRemoteDocuments(remoteCandidates(for: query), filters: Self.prefilters(of: query), report: &report)
    /// ```
    func scanRemoteDocuments(
        _ candidates: [(key: DocumentKey, entry: RemoteDocumentEntry)], filters: [FieldFilter],
        report: inout QueryExecutionReport
    ) throws -> [Document] {
        var documents: [Document] = []
        for (key, entry) in candidates.sorted(by: { $0.entry.reference < $1.entry.reference }) where entry.state == .found {
            report.documentsRead += 1
            if !filters.isEmpty {
                let passes = try events.withValue(of: entry.reference) {
                    try RemoteDocumentEvent.passes(filters, value: $0, key: key)
                }
                guard passes else { continue }
            }
            documents.append(try document(key, entry))
            report.documentsDecoded += 1
        }
        return documents
    }
}
