import CairnModel

/// What the cache keeps about a target, a query the client listens to (Firebase's `TargetData`): its id, the
/// query, where the watch stream left it (resume token, snapshot version) and its recency for garbage
/// collection.
///
/// The store fills in ``sequenceNumber``: it is the log sequence number of the `targetSaved` event that holds
/// this data, so it only grows and orders targets by their last save (Docs/LocalStore.md §2).
///
/// ```swift
/// var data = try store.allocateTarget(query)          // id 2, purpose .listen, no resume token yet
/// data.resumeToken = token
/// data.snapshotVersion = remoteEvent.snapshotVersion
/// try store.updateTarget(data, added: [room], removed: [])
/// ```
package struct TargetData: Sendable, Hashable {
    /// Why the client listens to the target (Firebase's `QueryPurpose`). The raw values are stored.
    package enum Purpose: UInt8, Sendable, Hashable {
        /// A query the user listens to.
        case listen = 0
        /// The query again, after an existence filter said the cached result has the wrong count.
        case existenceFilterMismatch = 1
        /// A single document in limbo, to learn whether it still exists.
        case limboResolution = 2
        /// The query again, after an existence filter's count disagreed and its bloom filter could not say which
        /// documents were removed (a false positive).
        case existenceFilterMismatchBloom = 3
    }

    /// The version of a target that has not seen a consistent snapshot yet (Firebase's `SnapshotVersion::None`).
    package static let noSnapshotVersion = Timestamp(seconds: 0, nanoseconds: 0)

    /// The id the watch stream knows the target by. Ids from the cache are even and never reused.
    package var targetID: Int32
    /// The query that allocated the target. Queries with the same ``target`` share one target, so this is the
    /// first of them.
    package var query: Query
    package var purpose: Purpose
    /// The log sequence number of the `targetSaved` event holding this data (0 before the first save).
    package var sequenceNumber: UInt64
    /// The snapshot version of the last consistent snapshot the target was part of.
    package var snapshotVersion: Timestamp
    /// The newest snapshot version at which the target's view had no documents in limbo: from there the query
    /// engine can use the previous result plus the documents changed since.
    package var lastLimboFreeSnapshotVersion: Timestamp
    /// The opaque token with which the watch stream resumes the target without sending every document again.
    /// Empty when the target has none.
    package var resumeToken: [UInt8]
    /// How many documents matched at the resume token, for the server's existence filter; `nil` when unknown.
    package var expectedCount: Int?

    package init(
        targetID: Int32, query: Query, purpose: Purpose = .listen, sequenceNumber: UInt64 = 0,
        snapshotVersion: Timestamp = TargetData.noSnapshotVersion,
        lastLimboFreeSnapshotVersion: Timestamp = TargetData.noSnapshotVersion, resumeToken: [UInt8] = [],
        expectedCount: Int? = nil
    ) {
        self.targetID = targetID
        self.query = query
        self.purpose = purpose
        self.sequenceNumber = sequenceNumber
        self.snapshotVersion = snapshotVersion
        self.lastLimboFreeSnapshotVersion = lastLimboFreeSnapshotVersion
        self.resumeToken = resumeToken
        self.expectedCount = expectedCount
    }

    /// The target the query runs as; targets are looked up by its canonical id.
    package var target: QueryTarget { query.target }
}
