import CairnLocalStore
import CairnModel
import Foundation

/// A whole data bundle, read and checked (the elements ``BundleLoader`` gathered), ready for
/// `SyncEngine.loadBundle(_:)`.
///
/// ```swift
/// let bundle = try LoadedBundle(parsing: text, databaseID: DatabaseID(projectID: "p"))
/// bundle.documents          // found documents and deletions, at their read times
/// ```
package struct LoadedBundle: Sendable {
    package var metadata: BundleMetadata
    package var namedQueries: [NamedQuery]
    /// Documents with their versions, and deletions (`noDocument` at the read time), in key order.
    package var documents: [Document]
    /// The names of the named queries each document belongs to.
    package var queriesByDocument: [DocumentKey: [String]]

    package var id: String { metadata.id }
    package var createTime: Timestamp { metadata.createTime }

    package init(
        metadata: BundleMetadata, namedQueries: [NamedQuery], documents: [Document],
        queriesByDocument: [DocumentKey: [String]]
    ) {
        self.metadata = metadata
        self.namedQueries = namedQueries
        self.documents = documents
        self.queriesByDocument = queriesByDocument
    }

    /// Reads a whole bundle from its text (for callers that do not report progress).
    package init(parsing text: String, databaseID: DatabaseID) throws(FirestoreErrorCode) {
        let reader = BundleReader(InputStream(data: Data(text.utf8)), databaseID: databaseID)
        var loader = BundleLoader(metadata: try reader.readMetadata())
        while let element = try reader.nextElement() { _ = try loader.add(element, bytesRead: reader.bytesRead) }
        self = try loader.finish()
    }

    /// The error of a bundle that cannot be read: `invalidArgument` naming the problem.
    package static func malformed(_ detail: String) -> FirestoreErrorCode {
        FirestoreErrorCode(.invalidArgument, "The bundle is malformed: \(detail). Check that it was built by a Firestore server SDK.")
    }
}
