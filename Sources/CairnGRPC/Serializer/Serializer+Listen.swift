import CairnCore
import CairnModel
import Foundation
import CairnLocalStore
import SwiftProtobuf

/// The Listen stream: a LocalStore ``TargetData`` to `Target`, and `ListenResponse` to the core's `WatchChange`
/// with its global snapshot version.
///
/// A document query becomes a documents target with its one resource name, every other query a query target.
/// A non-empty resume token is sent as `resume_token`, otherwise a non-zero snapshot version as `read_time`; with
/// either, the number of cached documents goes in `expected_count` (it asks the server for a bloom filter).
extension FirestoreSerializer {
    package func encodeListenTarget(_ targetData: TargetData) throws(FirestoreErrorCode) -> Google_Firestore_V1_Target {
        var target = Google_Firestore_V1_Target()
        target.targetID = targetData.targetID
        let query = targetData.target
        if query.isDocumentTarget {
            target.documents = Google_Firestore_V1_Target.DocumentsTarget.with {
                $0.documents = [name(for: query.path)]
            }
        } else {
            target.query = try encodeQueryTarget(query)
        }
        var resumes = true
        if !targetData.resumeToken.isEmpty {
            target.resumeToken = Data(targetData.resumeToken)
        } else if targetData.snapshotVersion > TargetData.noSnapshotVersion {
            target.readTime = Self.encode(targetData.snapshotVersion)
        } else {
            resumes = false
        }
        if resumes, let expected = targetData.expectedCount, let count = Int32(exactly: expected) {
            target.expectedCount = Google_Protobuf_Int32Value(count)
        }
        return target
    }

    package func decodeListenResponse(
        _ response: Google_Firestore_V1_ListenResponse
    ) throws(FirestoreErrorCode) -> WatchChange {
        switch response.responseType {
        case .targetChange(let change):
            return .targetChange(
                state: try Self.decodeState(change.targetChangeType), targetIDs: change.targetIds,
                resumeToken: [UInt8](change.resumeToken),
                cause: change.hasCause ? Self.decodeStatus(change.cause) : nil)
        case .documentChange(let change):
            guard change.hasDocument else { throw Self.malformed("a document_change has no document") }
            // The read time is the snapshot version of the remote event that applies the change; unknown here.
            let document = try decodeFoundDocument(change.document, readTime: TargetData.noSnapshotVersion)
            return .documentChange(
                updatedTargetIDs: change.targetIds, removedTargetIDs: change.removedTargetIds, key: document.key,
                document: document)
        case .documentDelete(let delete):
            let key = try decodeKey(delete.document)
            let readTime = delete.hasReadTime ? try Self.decode(delete.readTime) : TargetData.noSnapshotVersion
            return .documentChange(
                updatedTargetIDs: [], removedTargetIDs: delete.removedTargetIds, key: key,
                document: Document(key: key, state: .noDocument, version: readTime, readTime: readTime))
        case .documentRemove(let remove):
            return .documentChange(
                updatedTargetIDs: [], removedTargetIDs: remove.removedTargetIds, key: try decodeKey(remove.document),
                document: nil)
        case .filter(let filter):
            var bloom: BloomFilterParameters?
            if filter.hasUnchangedNames {
                let names = filter.unchangedNames
                bloom = BloomFilterParameters(
                    bitmap: [UInt8](names.bits.bitmap), padding: Int(names.bits.padding),
                    hashCount: Int(names.hashCount))
            }
            return .existenceFilter(targetID: filter.targetID, count: Int(filter.count), bloomFilter: bloom)
        case nil:
            throw Self.malformed("a Listen response has no response type (a kind this client does not know)")
        }
    }

    /// The global snapshot version a response carries: the read time of a NO_CHANGE target change with no target
    /// ids (a consistent snapshot of the whole stream), `TargetData.noSnapshotVersion` for every other response
    /// (Firebase's `DecodeVersionFromListenResponse`).
    package func decodeSnapshotVersion(
        _ response: Google_Firestore_V1_ListenResponse
    ) throws(FirestoreErrorCode) -> Timestamp {
        guard case .targetChange(let change) = response.responseType, change.targetChangeType == .noChange,
            change.targetIds.isEmpty, change.hasReadTime
        else { return TargetData.noSnapshotVersion }
        return try Self.decode(change.readTime)
    }

    /// A `google.rpc.Status` as the Firestore error it describes.
    package static func decodeStatus(_ status: Google_Rpc_Status) -> FirestoreErrorCode {
        let code = FirestoreErrorCode.Code(rawValue: Int(status.code)) ?? .unknown
        return FirestoreErrorCode(code, status.message.isEmpty ? "The server rejected the target." : status.message)
    }

    private static func decodeState(
        _ type: Google_Firestore_V1_TargetChange.TargetChangeType
    ) throws(FirestoreErrorCode) -> WatchTargetChangeState {
        switch type {
        case .noChange: return .noChange
        case .add: return .added
        case .remove: return .removed
        case .current: return .current
        case .reset: return .reset
        case .UNRECOGNIZED(let raw): throw malformed("a target change has the unknown type \(raw)")
        }
    }
}
