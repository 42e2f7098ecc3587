import SegmentLog

/// The kinds of events the cache appends to its log, one SegmentLog record each (see Docs/LocalStore.md).
/// Raw values are the record kinds on disk and never change meaning.
enum EventKind: UInt8, CaseIterable {
    /// A document's server state: found with contents, known missing (tombstone), or unknown.
    case remoteDocumentChanged = 1
    /// A document leaves the cache (garbage collection or a target's removal).
    case documentEvicted = 2
    /// A batch of local writes joins the outbox.
    case mutationBatchAdded = 3
    /// A batch leaves the outbox: acknowledged by the server or rejected.
    case mutationBatchRemoved = 4
    /// A target (a listened query) is saved or updated: resume token, snapshot version, sequence number.
    case targetSaved = 5
    /// A target is removed.
    case targetRemoved = 6
    /// Documents join or leave a target's result set.
    case targetMembershipChanged = 7
    /// The cache-wide globals change (last remote snapshot version, highest target id, stream tokens).
    case globalsChanged = 8
    /// The field-index configuration changes.
    case indexConfigurationChanged = 9
    /// A data bundle was loaded: its id, creation time and totals.
    case bundleSaved = 10
    /// A bundle saved a named query: its name, read time and query.
    case namedQuerySaved = 11
}

/// An event ready to append: kind, key and value bytes.
struct EncodedEvent {
    var kind: EventKind
    var key: [UInt8]
    var value: [UInt8]
}

/// A reference to where an event's bytes live: in the log, or (memory mode) in memory.
enum EventReference: Hashable, Comparable {
    case log(RecordLocation)
    case memory(Int)

    /// Storage order: log references by segment, frame and record (reading in this order decompresses each
    /// frame once), memory references by index. A store holds one kind; memory ones sort first.
    static func < (a: EventReference, b: EventReference) -> Bool {
        switch (a, b) {
        case (.log(let x), .log(let y)): x < y
        case (.memory(let x), .memory(let y)): x < y
        case (.memory, .log): true
        case (.log, .memory): false
        }
    }
}
