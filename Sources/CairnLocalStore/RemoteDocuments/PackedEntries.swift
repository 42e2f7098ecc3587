import CairnModel
import SegmentLog

/// A ``DocumentBucket``'s entries, 40 bytes each where ``RemoteDocumentEntry`` takes 56: timestamps as 32-bit
/// seconds since 1970 with the nanoseconds in 30 bits, a log reference's record index and size in 16 bits each,
/// the state and flags in the spare high bits. Nothing is lossy: an entry a field of which does not fit (a
/// timestamp before 1970 or after 2106, a record of 64 KiB or more or at index 65,536 or more in its frame, a
/// sequence number of 2^62 or more) is kept whole in a side array, and its packed slot says where. Reading an
/// entry unpacks it; only the bucket writes (`set`, `append`, `swapRemove`, `setOrphan`).
///
/// ```swift
/// var entries = PackedEntries()
/// entries.append(entry)
/// entries[0].version                      // as built
/// entries.set(moved, at: 0)               // compaction moved its record
/// ```
struct PackedEntries: RandomAccessCollection {
    /// One entry in ten 4-byte words.
    private struct Packed {
        var sequenceLow: UInt32
        /// Bits 0–29: the sequence number's bits 32–61; bit 30: a memory reference; bit 31: the entry is in
        /// `overflow`, at index `first`.
        var sequenceHigh: UInt32
        var versionSeconds: UInt32
        /// Bits 0–29: nanoseconds; bits 30–31: the state's raw value (1–3).
        var versionNanoseconds: UInt32
        var readTimeSeconds: UInt32
        /// Bits 0–29: nanoseconds; bit 31: hasCommittedMutations.
        var readTimeNanoseconds: UInt32
        /// A log reference's segment and frame offset; a memory reference's index, low and high word.
        var first: UInt32
        var second: UInt32
        /// A log reference's record index (bits 0–15) and size (bits 16–31).
        var third: UInt32
        /// ``RemoteDocumentEntry/orphan``: the number of the entry's slot in the orphan queue plus one, 0 when not
        /// queued (written alone by ``PackedEntries/setOrphan(_:at:)`` when the queue moves the slot).
        var orphan: UInt32
    }

    private static let memoryBit: UInt32 = 1 << 30
    private static let overflowBit: UInt32 = 1 << 31
    private static let committedBit: UInt32 = 1 << 31
    private static let lowBits: UInt32 = (1 << 30) - 1

    private var packed: [Packed] = []
    /// The entries that do not fit the packed form, and the free places among them.
    private var overflow: [RemoteDocumentEntry] = []
    private var freeOverflow: [UInt32] = []

    /// The bytes one packed entry takes in memory.
    static var packedStride: Int { MemoryLayout<Packed>.stride }

    var startIndex: Int { 0 }
    var endIndex: Int { packed.count }
    /// The number of entries kept whole because a field does not fit.
    var overflowCount: Int { overflow.count - freeOverflow.count }

    subscript(position: Int) -> RemoteDocumentEntry {
        let slot = packed[position]
        if slot.sequenceHigh & Self.overflowBit != 0 { return overflow[Int(slot.first)] }
        let flags =
            UInt8(truncatingIfNeeded: slot.versionNanoseconds >> 30)
            | (slot.readTimeNanoseconds & Self.committedBit != 0 ? RemoteDocumentEntry.committedFlag : 0)
            | (slot.sequenceHigh & Self.memoryBit != 0 ? RemoteDocumentEntry.memoryFlag : 0)
        return RemoteDocumentEntry(
            sequence: UInt64(slot.sequenceLow) | UInt64(slot.sequenceHigh & Self.lowBits) << 32,
            version: (Int64(slot.versionSeconds), Int32(slot.versionNanoseconds & Self.lowBits)),
            readTime: (Int64(slot.readTimeSeconds), Int32(slot.readTimeNanoseconds & Self.lowBits)),
            location: (slot.first, slot.second, slot.third & 0xFFFF, slot.third >> 16), flags: flags, orphan: slot.orphan)
    }

    mutating func append(_ entry: RemoteDocumentEntry) { packed.append(store(entry)) }

    /// Replaces the entry at `position`.
    mutating func set(_ entry: RemoteDocumentEntry, at position: Int) {
        release(packed[position])
        packed[position] = store(entry)
    }

    /// Writes the ``RemoteDocumentEntry/orphan`` field of the entry at `position`, and nothing else: the orphan
    /// queue renumbers the entries of the slots it moves.
    mutating func setOrphan(_ orphan: UInt32, at position: Int) {
        if packed[position].sequenceHigh & Self.overflowBit != 0 {
            overflow[Int(packed[position].first)].orphan = orphan
        } else {
            packed[position].orphan = orphan
        }
    }

    /// Removes the entry at `position`, moving the last one into its place (when it was not the last); returns it.
    mutating func swapRemove(at position: Int) -> RemoteDocumentEntry {
        let removed = self[position]
        release(packed[position])
        packed[position] = packed[packed.count - 1]
        packed.removeLast()
        return removed
    }

    mutating func reserveCapacity(_ count: Int) { packed.reserveCapacity(count) }

    /// Gives up the spare capacity when it is more than an eighth of what is held.
    mutating func shrinkToFit() {
        guard packed.capacity - packed.count > packed.count / 8 else { return }
        var exact: [Packed] = []
        exact.reserveCapacity(packed.count)
        exact.append(contentsOf: packed)
        packed = exact
    }

    /// `entry` packed, or its place in `overflow` when a field does not fit.
    private mutating func store(_ entry: RemoteDocumentEntry) -> Packed {
        if let slot = Self.pack(entry) { return slot }
        let index: UInt32
        if let free = freeOverflow.popLast() {
            index = free
            overflow[Int(index)] = entry
        } else {
            index = UInt32(overflow.count)
            overflow.append(entry)
        }
        return Packed(
            sequenceLow: 0, sequenceHigh: Self.overflowBit, versionSeconds: 0, versionNanoseconds: 0, readTimeSeconds: 0,
            readTimeNanoseconds: 0, first: index, second: 0, third: 0, orphan: 0)
    }

    /// Frees the overflow place `slot` names, if any.
    private mutating func release(_ slot: Packed) {
        guard slot.sequenceHigh & Self.overflowBit != 0 else { return }
        if Int(slot.first) == overflow.count - 1 {
            overflow.removeLast()
        } else {
            freeOverflow.append(slot.first)
        }
        if overflow.count == freeOverflow.count {
            overflow = []
            freeOverflow = []
        }
    }

    private static func pack(_ entry: RemoteDocumentEntry) -> Packed? {
        guard entry.sequence >> 62 == 0, let version = pack(entry.version), let readTime = pack(entry.readTime) else { return nil }
        var high = UInt32(truncatingIfNeeded: entry.sequence >> 32)
        let first: UInt32
        let second: UInt32
        var third: UInt32 = 0
        switch entry.reference {
        case .log(let at):
            guard at.index <= 0xFFFF, at.size <= 0xFFFF else { return nil }
            (first, second, third) = (at.segment, at.frameOffset, at.index | at.size << 16)
        case .memory(let index):
            let bits = UInt64(bitPattern: Int64(index))
            (first, second) = (UInt32(truncatingIfNeeded: bits), UInt32(truncatingIfNeeded: bits >> 32))
            high |= memoryBit
        }
        return Packed(
            sequenceLow: UInt32(truncatingIfNeeded: entry.sequence), sequenceHigh: high, versionSeconds: version.seconds,
            versionNanoseconds: version.nanoseconds | UInt32(entry.state.rawValue) << 30, readTimeSeconds: readTime.seconds,
            readTimeNanoseconds: readTime.nanoseconds | (entry.hasCommittedMutations ? committedBit : 0), first: first,
            second: second, third: third, orphan: entry.orphan)
    }

    /// Seconds since 1970 in 32 bits and nanoseconds in 30, if they fit.
    private static func pack(_ time: Timestamp) -> (seconds: UInt32, nanoseconds: UInt32)? {
        guard let seconds = UInt32(exactly: time.seconds), let nanoseconds = UInt32(exactly: time.nanoseconds),
            nanoseconds <= lowBits
        else { return nil }
        return (seconds, nanoseconds)
    }
}
