/// The state changes a mutation makes to a document, named after the SDKs' `MutableDocument` methods
/// (`model/mutable_document.cc`) so the mutation code reads like its reference.
///
/// A document is in one of three mutation states: synced (both flags false), with local mutations (the local
/// view includes unacknowledged writes) or with committed mutations (an acknowledged write that the watch
/// stream has not confirmed yet). The two flags are never both true.
extension Document {
    /// The version of a document that exists only in the local view: the SDKs' `SnapshotVersion::None()`.
    static let unsetVersion = Timestamp(seconds: 0, nanoseconds: 0)

    /// A document the cache knows nothing about yet, about to be converted by a mutation. It never escapes a
    /// mutation unconverted: the caller converts it to found, no-document or unknown before storing it.
    static func placeholder(for key: DocumentKey) -> Document {
        Document(key: key, state: .noDocument, version: unsetVersion)
    }

    /// Makes the document exist at `version` with `data`; the state becomes synced.
    mutating func convertToFoundDocument(version: Timestamp, data: ObjectValue) {
        self.state = .found
        self.version = version
        self.data = data
        setSynced()
    }

    /// Makes the document a tombstone at `version`: no data; the state becomes synced.
    mutating func convertToNoDocument(version: Timestamp) {
        self.state = .noDocument
        self.version = version
        self.data = ObjectValue()
        setSynced()
    }

    /// Makes the document unknown at `version`: a write to it was committed at that version but its contents
    /// are not known (a patch acknowledged for a document the cache did not hold). It has committed mutations.
    mutating func convertToUnknownDocument(version: Timestamp) {
        self.state = .unknown
        self.version = version
        self.data = ObjectValue()
        setHasCommittedMutations()
    }

    /// Marks the contents as including local, unacknowledged writes. The version becomes ``unsetVersion``: a
    /// local view has no server version (so an `updateTime` precondition of a later write fails against it).
    mutating func setHasLocalMutations() {
        hasLocalMutations = true
        hasCommittedMutations = false
        version = Self.unsetVersion
    }

    /// Marks the contents as the result of an acknowledged write not yet seen on the watch stream.
    mutating func setHasCommittedMutations() {
        hasLocalMutations = false
        hasCommittedMutations = true
    }

    private mutating func setSynced() {
        hasLocalMutations = false
        hasCommittedMutations = false
    }
}
