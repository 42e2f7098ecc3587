import CairnLocalStore
import CairnModel

/// One element of a data bundle (Firebase's `BundleElement`), decoded from its JSON object: the metadata
/// comes first, then named queries and documents, each document's metadata right before its contents.
///
/// ```swift
/// switch try BundleElement(json: object, decoder: decoder) {
/// case .documentMetadata(let key, let readTime, let exists, let queries): ...
/// default: ...
/// }
/// ```
package enum BundleElement {
    case metadata(BundleMetadata)
    case namedQuery(NamedQuery)
    /// A document's name, read time, whether it exists (its contents follow), and the named queries it matches.
    case documentMetadata(key: DocumentKey, readTime: Timestamp, exists: Bool, queries: [String])
    /// A document's contents; its read time is its metadata's.
    case document(key: DocumentKey, version: Timestamp, fields: ObjectValue)

    /// Decodes an element: `{"metadata": …}`, `{"namedQuery": …}`, `{"documentMetadata": …}` or `{"document": …}`.
    package init(json: [String: Any], decoder: BundleJSONDecoder) throws(FirestoreErrorCode) {
        if let metadata = json["metadata"] as? [String: Any] {
            self = .metadata(BundleMetadata(
                id: try decoder.string(metadata["id"], "metadata.id"),
                createTime: try decoder.timestamp(metadata["createTime"], "metadata.createTime"),
                version: try decoder.count(metadata["version"], "metadata.version"),
                totalDocuments: try decoder.count(metadata["totalDocuments"], "metadata.totalDocuments"),
                totalBytes: try decoder.count(metadata["totalBytes"], "metadata.totalBytes")))
        } else if let named = json["namedQuery"] as? [String: Any] {
            self = .namedQuery(try decoder.namedQuery(named))
        } else if let metadata = json["documentMetadata"] as? [String: Any] {
            let queries: Any = metadata["queries"] ?? [String]()
            guard let names = queries as? [String] else {
                throw LoadedBundle.malformed("documentMetadata.queries must be an array of query names")
            }
            self = .documentMetadata(
                key: try decoder.documentKey(metadata["name"], "documentMetadata.name"),
                readTime: try decoder.timestamp(metadata["readTime"], "documentMetadata.readTime"),
                exists: metadata["exists"] as? Bool == true, queries: names)
        } else if let document = json["document"] as? [String: Any] {
            self = .document(
                key: try decoder.documentKey(document["name"], "document.name"),
                version: try decoder.timestamp(document["updateTime"], "document.updateTime"),
                fields: try decoder.fields(document["fields"]))
        } else {
            throw LoadedBundle.malformed("an element is none of metadata, namedQuery, documentMetadata and document")
        }
    }
}
