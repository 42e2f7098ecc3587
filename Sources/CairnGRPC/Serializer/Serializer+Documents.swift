import CairnCore
import CairnModel
import SwiftProtobuf

/// Documents: `google.firestore.v1.Document` (name, fields, create and update time) to a CairnModel ``Document``
/// and back, and BatchGetDocuments answers to found or missing documents.
///
/// A found document's version is its `update_time`; its read time is the response's `read_time`. CairnModel's
/// document has no create time, so decoding drops `create_time` (the SDKs do not surface it either).
extension FirestoreSerializer {
    /// The protocol document for a key and its fields; `updateTime` is set when the version is known.
    package func encodeDocument(
        key: DocumentKey, data: ObjectValue, updateTime: Timestamp? = nil
    ) throws(FirestoreErrorCode) -> Google_Firestore_V1_Document {
        var document = Google_Firestore_V1_Document()
        document.name = name(for: key)
        document.fields = try encodeFields(data)
        if let updateTime { document.updateTime = Self.encode(updateTime) }
        return document
    }

    /// A found document: its key, fields and version (`update_time`), read at `readTime`.
    package func decodeFoundDocument(
        _ proto: Google_Firestore_V1_Document, readTime: Timestamp
    ) throws(FirestoreErrorCode) -> Document {
        guard proto.hasUpdateTime else {
            throw Self.malformed("the document \(proto.name) has no update_time")
        }
        return Document(
            key: try decodeKey(proto.name), state: .found, version: try Self.decode(proto.updateTime),
            readTime: readTime, data: try decodeFields(proto.fields))
    }

    /// One BatchGetDocuments answer: a found document, or a `noDocument` at the response's read time.
    package func decodeBatchGetResponse(
        _ response: Google_Firestore_V1_BatchGetDocumentsResponse
    ) throws(FirestoreErrorCode) -> Document {
        guard response.hasReadTime else {
            throw Self.malformed("a BatchGetDocuments response has no read_time")
        }
        let readTime = try Self.decode(response.readTime)
        switch response.result {
        case .found(let document):
            return try decodeFoundDocument(document, readTime: readTime)
        case .missing(let name):
            return Document(key: try decodeKey(name), state: .noDocument, version: readTime, readTime: readTime)
        case nil:
            throw Self.malformed("a BatchGetDocuments response has neither `found` nor `missing`")
        }
    }

    /// The documents of RunQuery answers, in order (responses without a document report progress only).
    package func decodeRunQueryResponses(
        _ responses: [Google_Firestore_V1_RunQueryResponse]
    ) throws(FirestoreErrorCode) -> [Document] {
        var documents: [Document] = []
        for response in responses where response.hasDocument {
            guard response.hasReadTime else {
                throw Self.malformed("a RunQuery response carries a document but no read_time")
            }
            documents.append(try decodeFoundDocument(response.document, readTime: Self.decode(response.readTime)))
        }
        return documents
    }
}
