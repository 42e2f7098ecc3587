/// A slot of an array kept in sequence-number order with lazy deletion (``SequenceQueue``).
protocol SequenceOrderedSlot {
    var sequence: UInt64 { get }
}

extension Array where Element: SequenceOrderedSlot {
    /// Puts `slot` in sequence order among the slots from `start` on (those before `start` are stale): appended
    /// when it is the highest, the usual case as LSNs only grow; into the stale slot just before `start` when it
    /// is the lowest; else inserted by binary search.
    mutating func insertInSequenceOrder(_ slot: Element, start: inout Int) {
        if count == start || self[count - 1].sequence <= slot.sequence {
            append(slot)
        } else if start > 0 && self[start].sequence >= slot.sequence {
            start -= 1
            self[start] = slot
        } else {
            var low = start
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if self[middle].sequence <= slot.sequence { low = middle + 1 } else { high = middle }
            }
            insert(slot, at: low)
        }
    }

    /// Walks the slots from `start` in sequence order until `limit` live ones were accepted: returns those
    /// (sequence number and the element `element` makes of each), the live ones `accept` refused on the way, and
    /// how many slots were read (live and stale). Stale slots met at the front are dropped for good (`start`
    /// moves past them).
    func lowest<Made>(
        _ limit: Int, start: inout Int, isLive: (Element) -> Bool, element: (Element) -> Made, accept: (Made) -> Bool
    ) -> (entries: [(sequence: UInt64, element: Made)], refused: [Made], examined: Int) {
        var entries: [(sequence: UInt64, element: Made)] = []
        var refused: [Made] = []
        var examined = 0
        var index = start
        while index < count && entries.count < limit {
            let slot = self[index]
            examined += 1
            if isLive(slot) {
                let made = element(slot)
                if accept(made) { entries.append((slot.sequence, made)) } else { refused.append(made) }
            } else if index == start {
                start += 1
            }
            index += 1
        }
        return (entries, refused, examined)
    }

    /// Rewrites the array without its stale slots once those from `start` on are more than the `live` ones (and
    /// some), allocated at its final size.
    mutating func compactIfSparse(start: inout Int, live: Int, isLive: (Element) -> Bool) {
        let stored = count - start
        guard stored > 64 && stored > 2 * live else { return }
        var kept: [Element] = []
        kept.reserveCapacity(live)
        for slot in self[start...] where isLive(slot) { kept.append(slot) }
        self = kept
        start = 0
    }
}
