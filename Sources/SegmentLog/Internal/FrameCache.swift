// A bounded cache of decoded frames for point reads, with CLOCK eviction (an approximation of LRU that needs
// no list surgery on a hit): each slot has a reference bit set on every hit; the hand sweeps the slots,
// clearing bits, and evicts the first slot whose bit is already clear. Capacity is in bytes of decoded
// payload; a frame larger than the whole capacity is returned but not kept. A frame may be kept as a prefix
// (a point read decodes only up to its record), replaced when a read decodes more of it. The budget also pays
// for where scanned segments' frames start (FrameOffsets.swift): up to half of it, the rest left to frames.

struct FrameKey: Hashable {
    var segment: UInt32
    var offset: UInt32

    /// One 64-bit word to hash instead of two fields: a cache miss hashes a key three times (lookup, insert,
    /// eviction).
    func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(segment) << 32 | UInt64(offset))
    }
}

struct FrameCache {
    private struct Slot {
        var key: FrameKey
        var frame: DecodedFrame
        var referenced: Bool
    }

    let capacity: Int
    private var slots: [Slot] = []
    private var index: [FrameKey: Int] = [:]
    private var hand = 0
    /// Bytes of decoded frames kept.
    private(set) var bytes = 0
    /// Bytes of the budget that frame offsets hold (``reserve(_:)``).
    private(set) var reservedBytes = 0
    private(set) var hits = 0
    private(set) var misses = 0

    init(capacity: Int) { self.capacity = capacity }

    /// The frame kept for `key` if `usable` accepts it (a prefix may not reach the record wanted); a refused
    /// frame counts as a miss.
    mutating func get(_ key: FrameKey, usable: (DecodedFrame) -> Bool = { $0.isComplete }) -> DecodedFrame? {
        guard let slot = index[key], usable(slots[slot].frame) else {
            misses += 1
            return nil
        }
        hits += 1
        slots[slot].referenced = true
        return slots[slot].frame
    }

    /// Keeps `frame`, in place of a prefix of it kept before (a read decoded further).
    mutating func insert(_ frame: DecodedFrame, for key: FrameKey) {
        let cost = frame.memoryCost
        if let slot = index[key] {
            let kept = slots[slot].frame
            guard !kept.isComplete && (frame.isComplete || frame.count > kept.count) else { return }
            remove(at: slot)
        }
        guard cost <= capacity - reservedBytes else { return }
        while bytes + reservedBytes + cost > capacity, !slots.isEmpty { evictOne() }
        index[key] = slots.count
        slots.append(Slot(key: key, frame: frame, referenced: false))
        bytes += cost
    }

    /// Takes `change` more bytes of the budget for frame offsets (a negative change gives some back), evicting
    /// frames to make room; false, and nothing taken, when offsets would then hold more than half the budget.
    mutating func reserve(_ change: Int) -> Bool {
        guard reservedBytes + change <= capacity / 2 else { return false }
        reservedBytes += change
        while bytes + reservedBytes > capacity, !slots.isEmpty { evictOne() }
        return true
    }

    /// Drops every frame of a segment (after compaction removed it).
    mutating func removeSegment(_ segment: UInt32) {
        var i = 0
        while i < slots.count {
            if slots[i].key.segment == segment { remove(at: i) } else { i += 1 }
        }
    }

    mutating func removeAll() {
        slots.removeAll()
        index.removeAll()
        bytes = 0
        reservedBytes = 0
        hand = 0
    }

    private mutating func evictOne() {
        while true {
            if hand >= slots.count { hand = 0 }
            if slots[hand].referenced {
                slots[hand].referenced = false
                hand += 1
            } else {
                remove(at: hand)
                return
            }
        }
    }

    /// Removes slot `i` by moving the last slot into its place.
    private mutating func remove(at i: Int) {
        bytes -= slots[i].frame.memoryCost
        index[slots[i].key] = nil
        let last = slots.count - 1
        if i != last {
            slots[i] = slots[last]
            index[slots[i].key] = i
        }
        slots.removeLast()
    }
}
