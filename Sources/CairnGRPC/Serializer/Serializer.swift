import CairnCore
import CairnModel
import SwiftProtobuf

/// Converts between CairnModel types and the Firestore v1 protocol messages of one database.
///
/// The serializer is the only place that knows both worlds: resource names
/// (`projects/{p}/databases/{d}/documents/{path}`), timestamps, values, documents, queries, writes and Listen
/// responses. Encoding fails only on values that can never be sent (a local server-timestamp placeholder, a limit
/// beyond Int32); decoding fails with ``FirestoreErrorCode/Code/dataLoss`` when a server message is malformed.
///
/// ```swift
/// let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "demo"))
/// let name = serializer.name(for: try DocumentKey(parsing: "rooms/a"))
/// // "projects/demo/databases/(default)/documents/rooms/a"
/// ```
package struct FirestoreSerializer: Sendable {
    package let databaseID: DatabaseID

    package init(databaseID: DatabaseID) {
        self.databaseID = databaseID
    }

    /// `projects/{project}/databases/{database}`: the `database` field of requests and the routing header value.
    package var databaseName: String {
        "projects/\(databaseID.projectID)/databases/\(databaseID.databaseID)"
    }

    /// `projects/{project}/databases/{database}/documents`: the parent of top-level collections.
    package var documentsRoot: String { databaseName + "/documents" }

    /// The resource name of a document.
    package func name(for key: DocumentKey) -> String { name(for: key.path) }

    /// The resource name of a path under the documents root (the root itself for an empty path).
    package func name(for path: ResourcePath) -> String {
        path.isEmpty ? documentsRoot : documentsRoot + "/" + path.canonicalString
    }

    /// The document key of a resource name of this database.
    package func decodeKey(_ name: String) throws(FirestoreErrorCode) -> DocumentKey {
        let (database, path) = try Self.splitResourceName(name)
        guard database == databaseID else {
            throw Self.malformed(
                "the document \(name) belongs to database \(database), but this client talks to \(databaseID)")
        }
        guard path.isDocumentPath, !path.segments.contains(where: \.isEmpty) else {
            throw Self.malformed("\(name) does not name a document (it needs an even number of non-empty segments)")
        }
        return DocumentKey(path: path)
    }

    /// The path below the documents root that a resource name of this database names (empty for the root).
    package func decodePath(_ name: String) throws(FirestoreErrorCode) -> ResourcePath {
        let (database, path) = try Self.splitResourceName(name)
        guard database == databaseID else {
            throw Self.malformed("\(name) belongs to database \(database), but this client talks to \(databaseID)")
        }
        return path
    }

    /// Splits `projects/{p}/databases/{d}/documents[/{path}]` into the database and the path.
    static func splitResourceName(_ name: String) throws(FirestoreErrorCode) -> (DatabaseID, ResourcePath) {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count >= 5, segments[0] == "projects", segments[2] == "databases", segments[4] == "documents",
            !segments[1].isEmpty, !segments[3].isEmpty
        else {
            throw malformed("\(name) is not a resource name of the form projects/{p}/databases/{d}/documents/...")
        }
        let database = DatabaseID(projectID: segments[1], databaseID: segments[3])
        return (database, ResourcePath(segments: Array(segments.dropFirst(5))))
    }

    /// The error for a server message this client cannot interpret.
    static func malformed(_ detail: String) -> FirestoreErrorCode {
        FirestoreErrorCode(
            .dataLoss,
            "Received a malformed message from the Firestore backend: \(detail). "
                + "Check that the server speaks the Firestore v1 API and report the message if it does.")
    }
}

extension FirestoreSerializer {
    /// A protocol timestamp from a model timestamp.
    package static func encode(_ timestamp: Timestamp) -> Google_Protobuf_Timestamp {
        Google_Protobuf_Timestamp(seconds: timestamp.seconds, nanos: timestamp.nanoseconds)
    }

    /// A model timestamp from a protocol timestamp; nanoseconds must be in 0..<1_000_000_000.
    package static func decode(_ timestamp: Google_Protobuf_Timestamp) throws(FirestoreErrorCode) -> Timestamp {
        guard (0..<1_000_000_000).contains(timestamp.nanos) else {
            throw malformed("timestamp nanoseconds \(timestamp.nanos) are outside 0..<1000000000")
        }
        return Timestamp(seconds: timestamp.seconds, nanoseconds: timestamp.nanos)
    }
}
