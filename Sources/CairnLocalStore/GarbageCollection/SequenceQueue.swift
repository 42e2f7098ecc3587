/// Elements ordered by a sequence number (LRU recency), lowest first: the orphaned documents and the inactive
/// targets that garbage collection reads from the front (Docs/LocalStore.md §5).
///
/// An array sorted by sequence number, plus the live sequence of each element. Moving or removing an element
/// only updates the map and leaves a stale array entry behind; walks skip stale entries and drop those at the
/// front, and the array is rewritten without them once they outnumber the live ones, so every operation is
/// amortized O(1) when sequence numbers arrive in increasing order — which they do, as LSNs only grow. An
/// older number (a target released with `keepPersisted`) is inserted by binary search.
///
/// ```swift
/// var queue = SequenceQueue<String>()
/// queue.set("a", sequence: 7)
/// queue.set("b", sequence: 5)
/// queue.set("a", sequence: 9)                  // moves "a" to the back
/// queue.lowest(2).entries.map(\.element)       // ["b", "a"]
/// ```
struct SequenceQueue<Element: Hashable> {
    private struct Slot: SequenceOrderedSlot {
        var sequence: UInt64
        /// Tells a live slot from a stale one of the same element.
        var stamp: UInt64
        var element: Element
    }

    private var slots: [Slot] = []
    /// Slots before this index are all stale.
    private var start = 0
    /// Element → its live (sequence, stamp).
    private var live: [Element: (sequence: UInt64, stamp: UInt64)] = [:]
    private var nextStamp: UInt64 = 0

    /// The number of elements.
    var count: Int { live.count }

    func sequence(of element: Element) -> UInt64? { live[element]?.sequence }

    func contains(_ element: Element) -> Bool { live[element] != nil }

    /// Adds `element` with `sequence`, or moves it there.
    mutating func set(_ element: Element, sequence: UInt64) {
        if live[element]?.sequence == sequence { return }
        nextStamp += 1
        live[element] = (sequence, nextStamp)
        let slot = Slot(sequence: sequence, stamp: nextStamp, element: element)
        slots.insertInSequenceOrder(slot, start: &start)
        compactIfSparse()
    }

    /// Removes `element`; returns whether it was there.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard live.removeValue(forKey: element) != nil else { return false }
        compactIfSparse()
        return true
    }

    /// The `limit` live elements with the lowest sequence numbers that `accept` takes, ascending; the live
    /// elements it refused on the way; and how many array entries were read (live and stale). Stale entries
    /// met at the front are dropped for good.
    mutating func lowest(
        _ limit: Int, accept: (Element) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: Element)], refused: [Element], examined: Int) {
        let live = live
        return slots.lowest(limit, start: &start, isLive: { live[$0.element]?.stamp == $0.stamp }, element: \.element, accept: accept)
    }

    /// Replaces the contents with `elements`, sorted once unless they come sorted (the end of replay).
    mutating func rebuild(_ elements: [(sequence: UInt64, element: Element)]) {
        slots = []
        live = [:]
        start = 0
        slots.reserveCapacity(elements.count)
        live.reserveCapacity(elements.count)
        let isSorted = zip(elements, elements.dropFirst()).allSatisfy { $0.sequence <= $1.sequence }
        for (sequence, element) in isSorted ? elements : elements.sorted(by: { $0.sequence < $1.sequence }) {
            nextStamp += 1
            live[element] = (sequence, nextStamp)
            slots.append(Slot(sequence: sequence, stamp: nextStamp, element: element))
        }
    }

    /// Rewrites the array without its stale entries once they are more than the live ones (and some).
    private mutating func compactIfSparse() {
        let live = live
        slots.compactIfSparse(start: &start, live: live.count) { live[$0.element]?.stamp == $0.stamp }
    }
}
