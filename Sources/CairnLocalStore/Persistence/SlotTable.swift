/// An open-addressing table of small non-negative integers (positions or ids into its owner's arrays), found
/// by hashes the owner computes from its own data: linear probing over a power-of-two array of `Int32`
/// (value + 1; 0 is an empty slot) and backward-shift deletion, so there are no tombstones. The owner keeps it
/// at most 3/4 full, rebuilding it larger. ``DocumentBucket`` uses it for its entries' positions by id (the
/// orphan queue, which had a copy of each key, names documents by their place in the buckets instead); four
/// bytes per slot.
///
/// ```swift
/// var table = SlotTable(capacity: 8)
/// let (slot, found) = table.find(hash: h) { value in names[Int(value)] == "ada" }   // (_, false)
/// table.store(0, at: slot)
/// ```
struct SlotTable {
    private var slots: [Int32]

    /// An empty table of `capacity` slots (a power of two).
    init(capacity: Int) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "a slot table's capacity is a power of two")
        slots = Array(repeating: 0, count: capacity)
    }

    /// A table of `capacity` slots (a power of two) holding `values`, each placed by `hash`.
    init(capacity: Int, values: some Sequence<Int32>, hash: (Int32) -> UInt64) {
        self.init(capacity: capacity)
        for value in values { slots[emptySlot(from: hash(value))] = value + 1 }
    }

    /// No slots, nothing allocated: a stand-in while an owner works on its table moved out of itself (the
    /// owner's hash reads the owner, so it cannot run inside a mutation of the owner's own property).
    static var empty: SlotTable { SlotTable(slots: []) }

    private init(slots: [Int32]) { self.slots = slots }

    var capacity: Int { slots.count }

    /// The slot holding a value that `matches`, or the empty slot where a value with `hash` goes.
    func find(hash: UInt64, matches: (Int32) -> Bool) -> (slot: Int, found: Bool) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            if matches(slots[slot] - 1) { return (slot, true) }
            slot = (slot + 1) & mask
        }
        return (slot, false)
    }

    /// The value in `slot`, which holds one.
    func value(at slot: Int) -> Int32 { slots[slot] - 1 }

    mutating func store(_ value: Int32, at slot: Int) { slots[slot] = value + 1 }

    /// The slot holding `value`, whose hash is `hash`.
    func slot(holding value: Int32, hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != value + 1 { slot = (slot + 1) & mask }
        return slot
    }

    /// Empties `slot`, moving later values of its probe run back so every value stays reachable from its home.
    mutating func clear(_ slot: Int, hash: (Int32) -> UInt64) {
        let mask = slots.count - 1
        var hole = slot
        var next = slot
        while true {
            next = (next + 1) & mask
            if slots[next] == 0 { break }
            let home = Int(truncatingIfNeeded: hash(slots[next] - 1)) & mask
            // The value at `next` may fill the hole unless its home lies cyclically in (hole, next].
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !stays {
                slots[hole] = slots[next]
                hole = next
            }
        }
        slots[hole] = 0
    }

    private func emptySlot(from hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        return slot
    }
}
