import CairnModel
import SegmentLog

/// What the remote documents view keeps per cached document: where its latest event is and what replay learned
/// from the event's header, packed into 56 bytes of plain values (the fields of an ``EventReference``, the two
/// timestamps as seconds and nanoseconds without padding, one byte for the state and flags, and the document's
/// slot in the orphan queue in what would be padding). Bodies stay in the log. A bucket stores it in 40 bytes
/// (``PackedEntries``).
///
/// ```swift
/// var entry = RemoteDocumentEntry(reference: .log(location), state: .found, version: version, readTime: readTime,
///                                 hasCommittedMutations: false, sequence: lsn)
/// entry.reference = .log(moved)          // compaction moved the record
/// ```
struct RemoteDocumentEntry {
    /// The sequence number of the event (an LSN in persistent mode): LRU recency.
    var sequence: UInt64
    private var versionSeconds: Int64
    private var readTimeSeconds: Int64
    /// A log reference's segment, frame offset, record index and size; a memory reference's index in the
    /// first two.
    private var location: (UInt32, UInt32, UInt32, UInt32)
    private var versionNanoseconds: Int32
    private var readTimeNanoseconds: Int32
    /// Bits 0–1: the state's raw value; bit 2: hasCommittedMutations; bit 3: a memory reference.
    private var flags: UInt8
    /// The number of the document's slot in the view's ``OrphanQueue`` plus one; 0 when it is not queued. Session
    /// state: every new entry starts at 0, the view carries it over when it replaces or moves a queued
    /// document's entry, and the queue rewrites it when it moves the slot.
    var orphan: UInt32 = 0

    static let committedFlag: UInt8 = 1 << 2
    static let memoryFlag: UInt8 = 1 << 3

    init(
        reference: EventReference, state: Document.State, version: Timestamp, readTime: Timestamp,
        hasCommittedMutations: Bool, sequence: UInt64
    ) {
        self.sequence = sequence
        versionSeconds = version.seconds
        versionNanoseconds = version.nanoseconds
        readTimeSeconds = readTime.seconds
        readTimeNanoseconds = readTime.nanoseconds
        location = (0, 0, 0, 0)
        flags = state.rawValue | (hasCommittedMutations ? Self.committedFlag : 0)
        self.reference = reference
    }

    /// An entry from its stored fields as they are (``PackedEntries`` unpacks into it without going through
    /// ``reference``): `location` as ``reference`` keeps it, `flags` with the bits `flags` documents.
    init(
        sequence: UInt64, version: (seconds: Int64, nanoseconds: Int32), readTime: (seconds: Int64, nanoseconds: Int32),
        location: (UInt32, UInt32, UInt32, UInt32), flags: UInt8, orphan: UInt32
    ) {
        self.sequence = sequence
        (versionSeconds, versionNanoseconds) = version
        (readTimeSeconds, readTimeNanoseconds) = readTime
        self.location = location
        self.flags = flags
        self.orphan = orphan
    }

    var reference: EventReference {
        get {
            if flags & Self.memoryFlag != 0 {
                return .memory(Int(Int64(bitPattern: UInt64(location.0) | UInt64(location.1) << 32)))
            }
            return .log(RecordLocation(segment: location.0, frameOffset: location.1, index: location.2, size: location.3))
        }
        set {
            switch newValue {
            case .log(let at):
                location = (at.segment, at.frameOffset, at.index, at.size)
                flags &= ~Self.memoryFlag
            case .memory(let index):
                let bits = UInt64(bitPattern: Int64(index))
                location = (UInt32(truncatingIfNeeded: bits), UInt32(truncatingIfNeeded: bits >> 32), 0, 0)
                flags |= Self.memoryFlag
            }
        }
    }

    /// Found, missing or unknown (every entry is built from a valid state, so the bits always name one).
    var state: Document.State { Document.State(rawValue: flags & 3) ?? .unknown }
    var version: Timestamp { Timestamp(seconds: versionSeconds, nanoseconds: versionNanoseconds) }
    var readTime: Timestamp { Timestamp(seconds: readTimeSeconds, nanoseconds: readTimeNanoseconds) }
    var hasCommittedMutations: Bool { flags & Self.committedFlag != 0 }
}
