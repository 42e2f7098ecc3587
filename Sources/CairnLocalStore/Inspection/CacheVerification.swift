import CairnModel
import SegmentLog

/// The outcome of ``CacheInspector/verify()``: every frame checked, and the cache's structural invariants.
///
/// ```swift
/// let verification = try inspector.verify()
/// for damage in verification.damage { print(damage) }   // segment, offset, what the frame held
/// exit(verification.isClean ? 0 : 1)
/// ```
package struct CacheVerification: Sendable {
    package var segments = 0
    package var frames = 0
    package var records: UInt64 = 0
    /// Damaged frames, in log order.
    package var damage: [FrameDamage] = []
    /// Broken invariants: records that do not decode, duplicate sequence numbers, a manifest that disagrees
    /// with its segments, a replay that fails.
    package var problems: [String] = []
    /// Findings that are not damage, such as an unfinished write at the end of the log (a crash cut it; the
    /// next writer removes it).
    package var notes: [String] = []

    package var isClean: Bool { damage.isEmpty && problems.isEmpty }
}

/// A damaged frame: where it is, what is wrong, and what it held.
package struct FrameDamage: Sendable, Equatable, CustomStringConvertible {
    package var segment: UInt32
    /// The segment file's name (`000003.seg`, ...).
    package var file: String
    /// Where the damaged range starts in the file.
    package var offset: UInt64
    /// Bytes up to the next intact frame or the end of the file.
    package var length: UInt64
    package var problem: String
    /// The records the frame held, when its header was readable.
    package var recordsLost: Int?
    /// Their sequence numbers, when the header was readable.
    package var sequences: ClosedRange<UInt64>?
    /// The last intact record before the damage in the same segment (`LSN 11 remoteDocumentChanged users/ada`).
    package var recordBefore: String?

    package var description: String {
        var text = "segment \(segment) (\(file)) offset \(offset), \(length) bytes: \(problem); "
        if let recordsLost {
            text += "the frame held \(recordsLost) record(s)"
            if let sequences { text += ", LSN \(sequences.lowerBound)...\(sequences.upperBound)" }
        } else {
            text += "the frame header is unreadable, so what it held is unknown"
        }
        if let recordBefore { text += "; last intact record before it: \(recordBefore)" }
        return text
    }
}

extension CacheInspector {
    /// Reads every frame of every segment and checks the cache's invariants. Never changes a byte.
    package func verify() throws -> CacheVerification {
        var result = CacheVerification()
        let frames: VerificationReport
        do {
            frames = try log.verify()
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
        result.segments = frames.segments
        result.frames = frames.frames
        result.records = frames.records
        result.problems = frames.inconsistencies
        for segment in Set(frames.damage.map(\.segment)).sorted() {
            let before = lastRecord(in: segment)
            for damage in frames.damage where damage.segment == segment {
                let sequences = damage.firstLSN.flatMap { first in
                    damage.recordsLost.flatMap { $0 > 0 ? first...(first + UInt64($0) - 1) : nil }
                }
                result.damage.append(FrameDamage(
                    segment: segment, file: String(damage.path.split(separator: "/").last ?? ""), offset: damage.offset,
                    length: damage.length, problem: damage.problem, recordsLost: damage.recordsLost, sequences: sequences,
                    recordBefore: damage.offset == frames.damage.first { $0.segment == segment }?.offset ? before : nil))
            }
        }
        if log.recoveryReport.truncatedBytes > 0 {
            result.notes.append(
                "unfinished write at the end of the log: \(log.recoveryReport.truncatedBytes) bytes "
                    + "(\(log.recoveryReport.tailProblem ?? "unknown")); never acknowledged, the next writer cuts it")
        }
        guard result.damage.isEmpty else {
            result.notes.append("event checks skipped: they need every frame intact")
            return result
        }
        result.problems += try eventProblems()
        return result
    }

    /// Every record decodes, sequence numbers are unique, replay succeeds, target ids are below the globals' highest.
    private func eventProblems() throws -> [String] {
        var problems: [String] = []
        var seen = Set<UInt64>()
        try forEachRecord { record in
            if !seen.insert(record.lsn).inserted {
                problems.append("LSN \(record.lsn) appears twice (again at \(record.location))")
            }
            if let problem = record.problem {
                problems.append("LSN \(record.lsn) at \(record.location), \(record.event) \(record.key): \(problem)")
            }
        }
        guard let store else {
            problems.append("replay fails: \(replayProblem ?? "unknown")")
            return problems
        }
        let highest = store.targets.globals.highestTargetID
        for id in store.targets.saved.keys.sorted() where id > highest {
            problems.append("target \(id) is saved but the globals say the highest target id is \(highest)")
        }
        return problems
    }

    /// The last record of `segment` that can be read before its first damaged frame.
    private func lastRecord(in segment: UInt32) -> String? {
        var last: String?
        try? log.scan(matching: RecordFilter(segment: segment)) { view in
            let record = DecodedRecord.decode(view, isRetired: nil)
            last = "LSN \(record.lsn) \(record.event) \(record.key)"
        }
        return last
    }
}
