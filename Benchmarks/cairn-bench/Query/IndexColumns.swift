// How both baselines store a range of an index with a contains segment: Firebase's SDKs keep the array element in
// a column of its own (Android's `array_value`) or a key component of its own (iOS's `index_entries`), so a range
// the planner gives in Cairn's index encoding is split into that element and the directional-value bounds.

import CairnModel

enum IndexColumns {
    /// `(array value, directional lower bound, directional upper bound)` of a half-open range of `scan`; the array
    /// value is empty when the index has no contains segment. `engine` names the baseline in errors.
    static func split(
        _ range: IndexRange, _ scan: IndexScan, engine: String
    ) throws -> (array: [UInt8], lower: [UInt8], upper: [UInt8]) {
        guard range.lowerInclusive, !range.upperInclusive else {
            throw BenchError("\(engine): the planner returned a range that is not half-open: \(range)")
        }
        guard let arraySegment = scan.index.arraySegment else { return ([], range.lower, range.upper) }
        var elements: [[UInt8]] = []
        for filter in scan.term.filters.flatMap(\.flattenedFilters) where filter.field == arraySegment.field {
            let values = filter.op == .arrayContainsAny ? filter.value.arrayElements ?? [] : [filter.value]
            for value in values {
                var encoder = IndexKeyEncoder()
                encoder.append(value)
                elements.append(encoder.bytes)
            }
        }
        guard let element = elements.first(where: { range.lower.starts(with: $0) }) else {
            throw BenchError("\(engine): cannot split the array value off the range \(range)")
        }
        let upper = range.upper.starts(with: element) ? Array(range.upper.dropFirst(element.count)) : [0xFF]
        return (element, Array(range.lower.dropFirst(element.count)), upper)
    }
}

/// The n-th smallest of a sequence of LRU sequence numbers, kept in a rolling buffer of the n smallest as
/// Firebase's `RollingSequenceNumberBuffer` does: the upper bound of a garbage-collection round. 0 when empty.
func nthSmallestSequenceNumber(_ sequences: some Sequence<Int>, count: Int) -> Int {
    var smallest: [Int] = []
    for sequence in sequences {
        if smallest.count < count {
            smallest.append(sequence)
            if smallest.count == count { smallest.sort() }
        } else if sequence < smallest[count - 1] {
            smallest.insert(sequence, at: smallest.firstIndex { $0 > sequence } ?? count - 1)
            smallest.removeLast()
        }
    }
    return smallest.max() ?? 0
}
