import SegmentLog

/// The live removal records of a persistent cache (`documentEvicted`, `targetRemoved`) and when each may retire
/// (Docs/LocalStore.md §4, refinement).
///
/// A removal must outlive every older record of its key, or replay would bring the removed document or target
/// back. When a removal is written, every older record of its key is retired, so compaction never copies one
/// again: such records can only be in segments that existed when the removal was written. Segment ids only grow
/// (appends and compaction outputs share one counter), so the removal's **horizon** is the highest segment id
/// that existed then, and once no segment at or below the horizon remains, the removal shadows nothing and
/// retires. The highest id is taken from what the store sees — the segment of every removal it appends, the
/// destination of every record compaction moves, the outputs of a compaction in progress, and the highest
/// segment at open (for removals met by replay, a conservative horizon).
///
/// ```swift
/// var removals = RemovalRecords()
/// removals.track(location)                                  // horizon: the highest segment seen so far
/// removals.retirable(oldestSegment: 9)                      // the locations whose horizon is below 9
/// ```
struct RemovalRecords {
    /// Each live removal record's horizon, by the segment it is in now (location → horizon). One table per
    /// segment keeps each table as small as a segment's share: a single table of every removal (hundreds of
    /// thousands in a large cache that garbage collection is emptying) stalled a collection round for tens of
    /// milliseconds whenever it grew and rehashed every entry.
    private var bySegment: [UInt32: [RecordLocation: UInt32]] = [:]
    /// The highest segment id the store has seen.
    private(set) var highestSegmentSeen: UInt32 = 0
    /// No live removal has a lower horizon, so a call of ``retirable(oldestSegment:)`` with an oldest segment at
    /// or below it returns at once instead of reading every removal (once per compaction).
    private var lowestHorizon: UInt32 = .max

    private(set) var count = 0

    /// Notes a segment the store saw (a compaction output, or the log's newest segment at open).
    mutating func see(segment: UInt32) {
        highestSegmentSeen = max(highestSegmentSeen, segment)
    }

    /// Tracks a removal record just appended or met by replay.
    mutating func track(_ location: RecordLocation) {
        see(segment: location.segment)
        if bySegment[location.segment, default: [:]].updateValue(highestSegmentSeen, forKey: location) == nil { count += 1 }
        lowestHorizon = min(lowestHorizon, highestSegmentSeen)
    }

    /// Follows a removal record that compaction moved.
    mutating func relocate(from: RecordLocation, to: RecordLocation) {
        see(segment: to.segment)
        guard let horizon = bySegment[from.segment]?.removeValue(forKey: from) else { return }
        if bySegment[from.segment]?.isEmpty == true { bySegment[from.segment] = nil }
        if bySegment[to.segment, default: [:]].updateValue(horizon, forKey: to) != nil { count -= 1 }
    }

    /// Stops tracking and returns the removals whose horizon is below `oldestSegment`, the lowest segment id
    /// still in the log: they shadow nothing any more.
    mutating func retirable(oldestSegment: UInt32) -> [RecordLocation] {
        guard oldestSegment > lowestHorizon else { return [] }
        var done: [RecordLocation] = []
        var lowest = UInt32.max
        for (_, horizons) in bySegment {
            for (location, horizon) in horizons {
                if horizon < oldestSegment { done.append(location) } else { lowest = min(lowest, horizon) }
            }
        }
        for location in done {
            bySegment[location.segment]?[location] = nil
            if bySegment[location.segment]?.isEmpty == true { bySegment[location.segment] = nil }
        }
        count -= done.count
        lowestHorizon = lowest
        return done
    }
}
