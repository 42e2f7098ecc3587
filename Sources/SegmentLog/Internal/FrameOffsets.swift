// Where a segment's frames start, as a scan found them. A point read that misses the frame cache then reads
// exactly its frame — header and stored payload — in one call, instead of a guess of its size that copies part
// of the next frame too (or falls short and needs a second read). Four bytes per frame, counted in the frame
// cache's budget (FrameCache.swift) and given back when the segment goes: a segment whose offsets do not fit
// there, and segments no scan has walked (a compaction's outputs, frames appended since), are read with the guess.

struct FrameOffsets {
    /// The offsets of consecutive frames, ascending.
    private(set) var starts: [UInt32] = []
    /// Where the last frame listed ends.
    private(set) var end: UInt32 = 0

    /// A scan's record of the frames it walked: they start at `starts` and tile the segment up to `end`.
    init(starts: [UInt32], end: UInt32) {
        // A copy of exactly the size needed: the array a scan grew may have room for twice as many.
        self.starts = [UInt32](unsafeUninitializedCapacity: starts.count) { buffer, initialized in
            initialized = buffer.initialize(fromContentsOf: starts)
        }
        self.end = end
    }

    init() {}

    /// Bytes of memory the offsets hold, as the frame cache's budget counts them.
    var memoryCost: Int { starts.capacity * 4 }

    /// The bytes (header and stored payload) of the frame at `offset`, or nil when no frame listed starts there.
    func frameSize(at offset: UInt32) -> Int? {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] < offset { low = middle + 1 } else { high = middle }
        }
        guard low < starts.count, starts[low] == offset else { return nil }
        return Int((low + 1 < starts.count ? starts[low + 1] : end) - offset)
    }
}
