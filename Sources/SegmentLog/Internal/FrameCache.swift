// A bounded cache of decoded frames for point reads, with CLOCK eviction (an approximation of LRU that needs
// no list surgery on a hit): each slot has a reference bit set on every hit; the hand sweeps the slots,
// clearing bits, and evicts the first slot whose bit is already clear. Capacity is in bytes of decoded
// payload; a frame larger than the whole capacity is returned but not kept.

struct FrameKey: Hashable {
    var segment: UInt32
    var offset: UInt32
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
    private(set) var bytes = 0
    private(set) var hits = 0
    private(set) var misses = 0

    init(capacity: Int) { self.capacity = capacity }

    mutating func get(_ key: FrameKey) -> DecodedFrame? {
        guard let slot = index[key] else {
            misses += 1
            return nil
        }
        hits += 1
        slots[slot].referenced = true
        return slots[slot].frame
    }

    mutating func insert(_ frame: DecodedFrame, for key: FrameKey) {
        let cost = frame.memoryCost
        guard cost <= capacity, index[key] == nil else { return }
        while bytes + cost > capacity, !slots.isEmpty { evictOne() }
        index[key] = slots.count
        slots.append(Slot(key: key, frame: frame, referenced: false))
        bytes += cost
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
