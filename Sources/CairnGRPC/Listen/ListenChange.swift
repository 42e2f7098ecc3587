import Cairn
import CairnModel

/// One decoded message of the Listen stream, in the shape of the core's `WatchChange` (Firebase's `WatchChange`
/// subclasses), so the Datastore adapter maps it case for case.
///
/// ```swift
/// .targetChange(state: .current, targetIDs: [2], resumeToken: token, readTime: t, cause: nil)
/// .documentChange(updatedTargetIDs: [2], removedTargetIDs: [], key: key, document: found)
/// .existenceFilter(targetID: 2, count: 3, bloomFilter: nil)
/// ```
package enum ListenChange: Sendable {
    /// A document changed: it now matches `updatedTargetIDs` and no longer matches `removedTargetIDs`.
    /// `document` is the new state (found, or `noDocument` at the read time for a delete), `nil` for a
    /// `document_remove` (only membership changed).
    case documentChange(updatedTargetIDs: [Int32], removedTargetIDs: [Int32], key: DocumentKey, document: Document?)
    /// The state of targets changed; empty `targetIDs` means every target of the stream. `cause` is set when the
    /// server rejected the targets (a REMOVE with an error).
    case targetChange(
        state: ListenTargetChangeState, targetIDs: [Int32], resumeToken: [UInt8], readTime: Timestamp?,
        cause: FirestoreErrorCode?)
    /// How many documents match the target on the server, optionally with a bloom filter of their names.
    case existenceFilter(targetID: Int32, count: Int, bloomFilter: ListenBloomFilter?)

    /// The global snapshot version this change carries: the read time of a NO_CHANGE with no target ids (a
    /// consistent snapshot of the whole stream), nil for every other change (Firebase's
    /// `DecodeVersionFromListenResponse`).
    package var snapshotVersion: Timestamp? {
        guard case .targetChange(.noChange, let ids, _, let readTime, _) = self, ids.isEmpty else { return nil }
        return readTime
    }
}

/// The kind of a target change (`TargetChange.TargetChangeType`).
package enum ListenTargetChangeState: Sendable, Hashable {
    case noChange
    case added
    case removed
    case current
    case reset
}

/// A bloom filter as an existence filter carries it: the bitmap, the ignored bits at the end of its last byte
/// (0–7), and how many hash functions set each member's bits.
package struct ListenBloomFilter: Sendable, Hashable {
    package var bitmap: [UInt8]
    package var padding: Int
    package var hashCount: Int

    package init(bitmap: [UInt8], padding: Int, hashCount: Int) {
        self.bitmap = bitmap
        self.padding = padding
        self.hashCount = hashCount
    }
}
