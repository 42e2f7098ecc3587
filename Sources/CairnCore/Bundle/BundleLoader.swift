import CairnLocalStore
import CairnModel

/// Gathers a bundle's elements as the reader delivers them (Firebase's `BundleLoader`): a document counts as
/// loaded when its contents arrive (or, for a deleted one, with its metadata), and each loaded document yields
/// a progress update; ``finish()`` checks the bundle is whole and returns it, ready to apply.
///
/// ```swift
/// var loader = BundleLoader(metadata: metadata)
/// while let element = try reader.nextElement() {
///     if let progress = try loader.add(element, bytesRead: reader.bytesRead) { report(progress) }
/// }
/// let bundle = try loader.finish()
/// ```
package struct BundleLoader {
    package let metadata: BundleMetadata
    private var namedQueries: [NamedQuery] = []
    private var documents: [DocumentKey: Document] = [:]
    private var queriesByDocument: [DocumentKey: [String]] = [:]
    /// The document whose metadata said it exists and whose contents come next.
    private var pending: (key: DocumentKey, readTime: Timestamp)?
    private var bytesLoaded = 0

    package init(metadata: BundleMetadata) {
        self.metadata = metadata
    }

    /// Adds the element that brought the reader's count of bytes to `bytesRead`; returns the progress when a
    /// document was loaded by it.
    package mutating func add(_ element: BundleElement, bytesRead: Int) throws(FirestoreErrorCode) -> BundleLoadProgress? {
        let before = documents.count
        switch element {
        case .metadata:
            throw LoadedBundle.malformed("the bundle has a second metadata element")
        case .namedQuery(let named):
            namedQueries.append(named)
        case .documentMetadata(let key, let readTime, let exists, let queries):
            if let pending { throw Self.missing(pending.key) }
            queriesByDocument[key] = queries
            if exists {
                pending = (key, readTime)
            } else {
                documents[key] = Document(key: key, state: .noDocument, version: readTime, readTime: readTime)
            }
        case .document(let key, let version, let fields):
            guard let expected = pending, expected.key == key else {
                throw LoadedBundle.malformed("the document \(key) does not follow its documentMetadata")
            }
            pending = nil
            documents[key] = Document(key: key, state: .found, version: version, readTime: expected.readTime, data: fields)
        }
        bytesLoaded = bytesRead
        guard documents.count > before else { return nil }
        return BundleLoadProgress(
            documentsLoaded: documents.count, totalDocuments: metadata.totalDocuments, bytesLoaded: bytesLoaded,
            totalBytes: metadata.totalBytes, state: .inProgress)
    }

    /// The whole bundle, once every element was added. Fails when a document's contents are missing or the
    /// number of documents differs from the metadata's (Firebase's checks in `ApplyChanges`).
    package func finish() throws(FirestoreErrorCode) -> LoadedBundle {
        if let pending { throw Self.missing(pending.key) }
        guard documents.count == metadata.totalDocuments else {
            throw LoadedBundle.malformed(
                "it holds \(documents.count) document(s) but its metadata announces \(metadata.totalDocuments)")
        }
        return LoadedBundle(
            metadata: metadata, namedQueries: namedQueries,
            documents: documents.values.sorted { $0.key < $1.key }, queriesByDocument: queriesByDocument)
    }

    private static func missing(_ key: DocumentKey) -> FirestoreErrorCode {
        LoadedBundle.malformed("the document \(key) is announced by its documentMetadata but its contents are missing")
    }
}
