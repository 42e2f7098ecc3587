import CairnModel

/// One message of the watch stream, decoded (Firebase's `WatchChange` subclasses).
///
/// ```swift
/// .targetChange(state: .current, targetIDs: [2], resumeToken: Array("resume-token-1000".utf8), cause: nil)
/// .documentChange(updatedTargetIDs: [2], removedTargetIDs: [], key: key, document: found)
/// .existenceFilter(targetID: 2, count: 3, bloomFilter: nil)
/// ```
package enum WatchChange: Sendable {
    /// A document changed: it now matches `updatedTargetIDs` and no longer matches `removedTargetIDs`.
    /// `document` is the new state (found, or `noDocument` for a delete), `nil` when only membership changed.
    case documentChange(updatedTargetIDs: [Int32], removedTargetIDs: [Int32], key: DocumentKey, document: Document?)
    /// The state of targets changed. Empty `targetIDs` with `.noChange` means "all targets" (a global snapshot).
    case targetChange(state: WatchTargetChangeState, targetIDs: [Int32], resumeToken: [UInt8], cause: FirestoreErrorCode?)
    /// How many documents match the target on the server, optionally with a bloom filter of their names.
    case existenceFilter(targetID: Int32, count: Int, bloomFilter: BloomFilterParameters?)
}

/// The kind of a target change (`TargetChange.TargetChangeType` in the protocol).
package enum WatchTargetChangeState: Sendable, Hashable {
    case noChange
    case added
    case removed
    case current
    case reset
}

/// A bloom filter as the server sends it in an existence filter: the bitmap, how many of its last byte's bits are
/// padding, and how many hash functions set each member's bits.
package struct BloomFilterParameters: Sendable, Hashable {
    package var bitmap: [UInt8]
    package var padding: Int
    package var hashCount: Int

    package init(bitmap: [UInt8], padding: Int, hashCount: Int) {
        self.bitmap = bitmap
        self.padding = padding
        self.hashCount = hashCount
    }
}
