/// How the orphan queue keeps its slots in order without renumbering many entries at once (``OrphanQueue``): the
/// order is the slots `start..<gapStart` then `gapEnd..<slots.count` (the *head*, empty at rest, and the *tail*),
/// stale ones included, sequence numbers never decreasing. Every slot that moves has its entry renumbered.
///
/// - Insertion: after the last slot (the usual case, as LSNs only grow) it is an append; at or before the first,
///   into the stale slot before the front; else after the slots of equal or lower numbers, moving those between
///   that place and the nearest stale room (the gap, or the slot before the front) by one, or the rest of the
///   array when there is none.
/// - Compaction: once the stale slots are more than the live ones (and 64), each change moves the gap over
///   ``OrphanQueue/compactionStep`` slots (the live ones down to its start); at the back it is cut off, and the
///   array reallocated when it holds less than a quarter of its capacity (a copy: numbers do not change).
extension OrphanQueue {
    /// Puts `slot` in sequence order; returns its number.
    mutating func insert(_ slot: Slot, entries buckets: inout [DocumentBucket]) -> Int {
        let head = start..<max(start, gapStart)
        let tail = gapEnd..<slots.count
        guard let last = tail.last ?? head.last, slots[last].sequence > slot.sequence else {
            slots.append(slot)
            return slots.count - 1
        }
        if start > 0, slots[head.first ?? tail.lowerBound].sequence >= slot.sequence {
            if start == gapEnd { gapEnd -= 1 }
            start -= 1
            slots[start] = slot
            return start
        }
        let gapIsEmpty = gapStart == gapEnd
        if let end = head.last, slots[end].sequence > slot.sequence {
            let place = upperBound(slot.sequence, in: head)
            let left = start > 0 ? place - start : Int.max
            let right = gapIsEmpty ? Int.max : gapStart - place
            if left <= right && left < Int.max {
                shift(start..<place, by: -1, &buckets)
                start -= 1
                slots[place - 1] = slot
                return place - 1
            }
            if right < Int.max {
                shift(place..<gapStart, by: 1, &buckets)
                gapStart += 1
                slots[place] = slot
                return place
            }
            return insertMoving(slot, at: place, &buckets)
        }
        let place = upperBound(slot.sequence, in: tail)
        if !gapIsEmpty && place - gapEnd <= slots.count - place {
            shift(gapEnd..<place, by: -1, &buckets)
            if start == gapEnd { start -= 1 }
            gapEnd -= 1
            slots[place - 1] = slot
            return place - 1
        }
        return insertMoving(slot, at: place, &buckets)
    }

    /// Moves the gap over the next ``OrphanQueue/compactionStep`` slots while compacting, starting a compaction
    /// when the stale slots are more than the live ones and 64.
    mutating func compactStep(_ buckets: inout [DocumentBucket]) {
        if !compacting {
            let stale = slots.count - count
            guard stale > 64 && stale > count else { return }
            compacting = true
        }
        var read = 0
        while read < Self.compactionStep && gapEnd < slots.count {
            let slot = slots[gapEnd]
            if slot.handle == Self.free {
                if start == gapEnd { start += 1 }
            } else {
                if start == gapEnd { start = gapStart }
                if gapStart < gapEnd {
                    slots[gapStart] = slot
                    slots[gapEnd].handle = Self.free
                    buckets.setOrphan(Self.field(naming: gapStart), at: slot.handle)
                }
                gapStart += 1
            }
            gapEnd += 1
            read += 1
        }
        finishCompaction()
    }

    /// Ends a compaction whose gap reached the back: cuts the gap off and leaves the stale front as the gap.
    mutating func finishCompaction() {
        guard compacting && gapEnd == slots.count else { return }
        slots.removeLast(slots.count - gapStart)
        compacting = false
        start = min(start, slots.count)
        gapStart = 0
        gapEnd = start
        if slots.capacity > 4 * slots.count + 1024 {
            var exact: [Slot] = []
            exact.reserveCapacity(slots.count)
            exact.append(contentsOf: slots)
            slots = exact
        }
    }

    /// What breaks the queue's invariants, given each handle's entry's ``RemoteDocumentEntry/orphan`` field
    /// (tests; empty when none does).
    func invariantViolations(field: (DocumentHandle) -> UInt32) -> [String] {
        guard 0 <= gapStart && gapStart <= gapEnd && gapEnd <= slots.count else {
            return ["gap \(gapStart)..<\(gapEnd) of \(slots.count)"]
        }
        let isLive = { (slot: Slot) in slot.handle != Self.free }
        let order = Array(start..<max(start, gapStart)) + Array(gapEnd..<slots.count)
        var problems = [
            (start < gapStart || (gapStart == 0 && start == gapEnd), "front \(start), gap \(gapStart)..<\(gapEnd)"),
            (compacting || gapStart == 0, "a gap at \(gapStart) at rest"),
            (!slots[0..<min(start, gapStart)].contains(where: isLive), "a live slot before the front"),
            (!slots[gapStart..<gapEnd].contains(where: isLive), "a live slot in the gap"),
            (!zip(order, order.dropFirst()).contains { slots[$0].sequence > slots[$1].sequence }, "out of order"),
        ].filter { !$0.0 }.map(\.1)
        let live = slots.indices.filter { slots[$0].handle != Self.free }
        if live.count != count { problems.append("\(live.count) live slots, count \(count)") }
        for number in live where field(slots[number].handle) != Self.field(naming: number) {
            problems.append("slot \(number)'s entry names \(field(slots[number].handle))")
        }
        return problems
    }

    /// The first position in `range` whose slot's sequence number is above `sequence`.
    private func upperBound(_ sequence: UInt64, in range: Range<Int>) -> Int {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Moves the slots in `range` by `offset` (±1, onto a stale slot) and renumbers their entries.
    private mutating func shift(_ range: Range<Int>, by offset: Int, _ buckets: inout [DocumentBucket]) {
        if offset < 0 {
            for number in range { slots[number + offset] = slots[number] }
        } else {
            for number in range.reversed() { slots[number + offset] = slots[number] }
        }
        renumber((range.lowerBound + offset)..<(range.upperBound + offset), &buckets)
    }

    /// Inserts `slot` at `place` with no stale room near it: every slot after it moves up and is renumbered —
    /// unless the queue is at rest with no stale front, `place` is in its front half with more than
    /// ``rebuiltFrontRoom`` slots after it, and the queue's live slots outnumber its stale ones with the new front
    /// (so no compaction starts and throws it away): then the queue first takes a stale front of a 64th of its
    /// orphans (at least ``rebuiltFrontRoom`` slots; every entry renumbered once), so that this and the next
    /// older numbers near the front move only the slots before their place (a removed target's documents after a
    /// compaction used the stale front up).
    private mutating func insertMoving(_ slot: Slot, at place: Int, _ buckets: inout [DocumentBucket]) -> Int {
        let room = max(Self.rebuiltFrontRoom, count / 64)
        if !compacting && start == 0 && place < slots.count - place && slots.count - place > Self.rebuiltFrontRoom
            && slots.count - count + room < count
        {
            slots.insert(contentsOf: repeatElement(Slot(sequence: 0, handle: Self.free), count: room), at: 0)
            start = room
            gapStart = 0
            gapEnd = room
            renumber(room..<slots.count, &buckets)
            let at = place + room
            shift(gapEnd..<at, by: -1, &buckets)
            start -= 1
            gapEnd -= 1
            slots[at - 1] = slot
            return at - 1
        }
        slots.insert(slot, at: place)
        if gapStart > place { gapStart += 1 }
        if gapEnd > place { gapEnd += 1 }
        renumber((place + 1)..<slots.count, &buckets)
        return place
    }
}
