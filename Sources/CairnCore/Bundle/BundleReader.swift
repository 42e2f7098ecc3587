import CairnModel
import Foundation

/// A data bundle, parsed (Firebase's `BundleReader` and `BundleSerializer`).
///
/// Format: a sequence of elements, each the decimal byte length of a JSON object followed by the object itself:
///
/// ```
/// bundle   = element*
/// element  = length json          ; length: ASCII digits, the UTF-8 byte count of json
/// json     = {"metadata": {id, createTime, version, totalDocuments, totalBytes}}       ; first element
///          | {"namedQuery": {name, readTime, bundledQuery: {parent, structuredQuery, limitType?}}}
///          | {"documentMetadata": {name, readTime, exists, queries?}}
///          | {"document": {name, createTime, updateTime, fields}}                         ; after its metadata
/// ```
///
/// Documents use the Firestore REST encoding (`{"stringValue": "a"}`, `{"integerValue": "1"}`, …); times are
/// RFC 3339 strings.
///
/// ```swift
/// let bundle = try LoadedBundle(parsing: text, databaseID: DatabaseID(projectID: "p"))
/// bundle.documents          // found documents and deletions, at their read times
/// ```
package struct LoadedBundle: Sendable {
    package struct NamedQuery: Sendable {
        package var name: String
        package var query: Query
        package var readTime: Timestamp
    }

    package var id: String
    package var createTime: Timestamp
    package var namedQueries: [NamedQuery] = []
    /// Documents with their versions, and deletions (`noDocument` at the read time).
    package var documents: [Document] = []
    /// The names of the named queries each document belongs to.
    package var queriesByDocument: [DocumentKey: [String]] = [:]

    package init(parsing text: String, databaseID: DatabaseID) throws(FirestoreErrorCode) {
        let elements = try Self.elements(of: Array(text.utf8))
        guard let metadata = elements.first?["metadata"] as? [String: Any] else {
            throw Self.malformed("the first element must be the bundle's metadata")
        }
        let decoder = BundleJSONDecoder(databaseID: databaseID)
        id = try decoder.string(metadata["id"], "metadata.id")
        createTime = try decoder.timestamp(metadata["createTime"], "metadata.createTime")
        var pending: (key: DocumentKey, readTime: Timestamp)?
        for element in elements.dropFirst() {
            if let named = element["namedQuery"] as? [String: Any] {
                namedQueries.append(try decoder.namedQuery(named))
            } else if let metadata = element["documentMetadata"] as? [String: Any] {
                let key = try decoder.documentKey(metadata["name"], "documentMetadata.name")
                let readTime = try decoder.timestamp(metadata["readTime"], "documentMetadata.readTime")
                queriesByDocument[key] = metadata["queries"] as? [String] ?? []
                if metadata["exists"] as? Bool == true {
                    pending = (key, readTime)
                } else {
                    documents.append(Document(key: key, state: .noDocument, version: readTime, readTime: readTime))
                }
            } else if let document = element["document"] as? [String: Any] {
                let key = try decoder.documentKey(document["name"], "document.name")
                guard let expected = pending, expected.key == key else {
                    throw Self.malformed("the document \(key) does not follow its documentMetadata")
                }
                pending = nil
                documents.append(Document(
                    key: key, state: .found, version: try decoder.timestamp(document["updateTime"], "document.updateTime"),
                    readTime: expected.readTime, data: try decoder.fields(document["fields"])))
            } else {
                throw Self.malformed("an element is none of metadata, namedQuery, documentMetadata and document")
            }
        }
        if let pending { throw Self.malformed("the document \(pending.key) is announced but missing") }
    }

    /// Splits the bundle into its JSON elements.
    private static func elements(of bytes: [UInt8]) throws(FirestoreErrorCode) -> [[String: Any]] {
        var elements: [[String: Any]] = []
        var index = 0
        while index < bytes.count {
            var length = 0
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                length = length * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
                guard length <= bytes.count else { throw malformed("an element's length exceeds the bundle") }
            }
            guard index > start, index + length <= bytes.count else {
                throw malformed("an element's length prefix is missing or runs past the end at byte \(start)")
            }
            let json = Data(bytes[index..<index + length])
            guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw malformed("the element at byte \(start) is not a JSON object")
            }
            elements.append(object)
            index += length
        }
        return elements
    }

    package static func malformed(_ detail: String) -> FirestoreErrorCode {
        FirestoreErrorCode(.invalidArgument, "The bundle is malformed: \(detail). Check that it was built by a Firestore server SDK.")
    }
}
