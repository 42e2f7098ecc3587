/// A slot of an array kept in sequence-number order with lazy deletion (``SequenceQueue``, ``OrphanQueue``).
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
}
