import CairnCore
import CairnModel
import SwiftProtobuf

/// The answers to commits: a Commit call's `CommitResponse` and a Write stream's `WriteResponse` both carry a
/// commit time and one write result per write sent.
///
/// The commit time may be missing: the emulator omits it when a commit has no writes (an empty transaction).
/// As Firebase, the commit version is then `SnapshotVersion.none` (the zero timestamp) and the answer is accepted,
/// whatever the writes; a write result without an update time takes the commit version, as a delete's does.
///
/// ```swift
/// let ack = try serializer.decodeCommitResponse(response, writeCount: mutations.count)
/// ack.commitVersion   // the commit time, or Timestamp(seconds: 0, nanoseconds: 0) when the server sent none
/// ```
extension FirestoreSerializer {
    /// The commit version of an answer that carries no commit time (Firebase's `SnapshotVersion::None()`).
    package static let noCommitVersion = Timestamp(seconds: 0, nanoseconds: 0)

    /// The acknowledgement a Commit call returned for `writeCount` writes.
    package func decodeCommitResponse(
        _ response: Google_Firestore_V1_CommitResponse, writeCount: Int
    ) throws(FirestoreErrorCode) -> FirestoreRPC.CommitAck {
        try decodeAck(
            results: response.writeResults, commitTime: response.hasCommitTime ? response.commitTime : nil,
            writeCount: writeCount)
    }

    /// The acknowledgement a Write stream response carries for the `writeCount` writes of the oldest batch in
    /// flight.
    package func decodeWriteResponse(
        _ response: Google_Firestore_V1_WriteResponse, writeCount: Int
    ) throws(FirestoreErrorCode) -> FirestoreRPC.CommitAck {
        try decodeAck(
            results: response.writeResults, commitTime: response.hasCommitTime ? response.commitTime : nil,
            writeCount: writeCount)
    }

    private func decodeAck(
        results: [Google_Firestore_V1_WriteResult], commitTime: Google_Protobuf_Timestamp?, writeCount: Int
    ) throws(FirestoreErrorCode) -> FirestoreRPC.CommitAck {
        guard results.count == writeCount else {
            throw Self.malformed("\(writeCount) writes were acknowledged with \(results.count) results")
        }
        let commitVersion = try commitTime.map { (time) throws(FirestoreErrorCode) in try Self.decode(time) }
            ?? Self.noCommitVersion
        let decoded = try results.map { (result) throws(FirestoreErrorCode) in
            try decodeWriteResult(result, commitTime: commitVersion)
        }
        return FirestoreRPC.CommitAck(commitVersion: commitVersion, results: decoded)
    }
}
