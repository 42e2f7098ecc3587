/// A document as the cache knows it: its key, contents when it exists, and the versions that say how fresh
/// the knowledge is.
package struct Document: Sendable {
    /// What is known about the document.
    package enum State: UInt8, Sendable {
        /// The document exists with `data`.
        case found = 1
        /// The server said the document does not exist (a tombstone at `version`).
        case noDocument = 2
        /// A write was acknowledged but the resulting contents are unknown (e.g. a transform result).
        case unknown = 3
    }

    package var key: DocumentKey
    package var state: State
    /// The server's update time of this version (zero for local-only documents).
    package var version: Timestamp
    /// When the client last received this document from the server (for incremental queries).
    package var readTime: Timestamp
    package var data: ObjectValue
    /// True when the contents include local writes not yet acknowledged.
    package var hasLocalMutations: Bool
    /// True when the contents come from an acknowledged write not yet seen on the watch stream.
    package var hasCommittedMutations: Bool

    package init(
        key: DocumentKey, state: State, version: Timestamp, readTime: Timestamp = Timestamp(seconds: 0, nanoseconds: 0),
        data: ObjectValue = ObjectValue(), hasLocalMutations: Bool = false, hasCommittedMutations: Bool = false
    ) {
        self.key = key
        self.state = state
        self.version = version
        self.readTime = readTime
        self.data = data
        self.hasLocalMutations = hasLocalMutations
        self.hasCommittedMutations = hasCommittedMutations
    }

    package var exists: Bool { state == .found }
}
