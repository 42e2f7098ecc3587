// Verification reads every byte of every segment and checks everything that can be checked: header and
// payload checksums, decompression, record structure, and the sealed segments' record counts against the
// manifest. After a damaged frame it resynchronises on the next intact frame, so one report lists every
// damaged range.

/// A damaged stretch of a segment.
public struct Damage: Sendable, Equatable, CustomStringConvertible {
    public var segment: UInt32
    /// Where the damage starts.
    public var offset: UInt64
    /// Bytes up to the next intact frame (or the end of the segment).
    public var length: UInt64
    public var problem: String
    /// Records lost, when the damaged frame's header was intact enough to say.
    public var recordsLost: Int?
    /// The file.
    public var path: String
    /// The sequence number of the damaged frame's first record, when its header was intact enough to say.
    public var firstLSN: UInt64? = nil
    /// The intact header's `syncedEnd` (recovery uses it to tell damage from a torn write).
    var syncedEnd: UInt32? = nil

    public var description: String {
        "segment \(segment) offset \(offset) (+\(length) bytes): \(problem)"
            + (recordsLost.map { "; \($0) record(s) lost" } ?? "; records lost: unknown")
    }
}

/// The outcome of ``SegmentLog/verify()``.
public struct VerificationReport: Sendable {
    public var segments = 0
    public var frames = 0
    public var records: UInt64 = 0
    public var damage: [Damage] = []
    /// Mismatches between segments and the manifest that are not damaged frames.
    public var inconsistencies: [String] = []

    public var isClean: Bool { damage.isEmpty && inconsistencies.isEmpty }
}

extension SegmentLog {
    /// Reads and checks every frame of every segment. Never changes a byte.
    public func verify() throws -> VerificationReport {
        var report = VerificationReport()
        let activeID = state.withLock { $0.activeID }
        let sealedCounts: [UInt32: UInt64] = state.withLock { state in
            var counts: [UInt32: UInt64] = [:]
            for (id, segment) in state.segments where !segment.isActive { counts[id] = segment.recordCount }
            return counts
        }
        for (id, handle, length) in try scanPlan() {
            report.segments += 1
            var records: UInt64 = 0
            let damageBefore = report.damage.count
            SegmentLog.walkFrames(handle: handle, segment: id, end: length, path: segmentPath(id), zeroTailIsEnd: false) { step in
                switch step {
                case .frame(let frame):
                    report.frames += 1
                    records += UInt64(frame.records.count)
                case .damage(let damage):
                    report.damage.append(damage)
                }
            }
            if id == activeID {
                report.damage += recoveryReport.activeSegmentDamage
            }
            report.records += records
            if let expected = sealedCounts[id], report.damage.count == damageBefore, expected != records {
                report.inconsistencies.append("segment \(id) holds \(records) records; the manifest says \(expected)")
            }
        }
        return report
    }

    /// Whether bytes [from, to) of a file are all zero (a preallocated tail).
    static func isZero(_ handle: any StorageFile, from: UInt64, to end: UInt64) throws -> Bool {
        var offset = from
        while offset < end {
            let chunk = try handle.read(at: offset, count: Int(min(1 << 20, end - offset)))
            if chunk.isEmpty || !chunk.allSatisfy({ $0 == 0 }) { return chunk.isEmpty }
            offset += UInt64(chunk.count)
        }
        return true
    }

    /// A frame read by ``walkFrames``: its header and its records, copied.
    struct WalkedFrame {
        var offset: UInt64
        var header: FrameHeader
        var records: [Record]
    }

    enum WalkStep {
        case frame(WalkedFrame)
        case damage(Damage)
    }

    /// Visits every intact frame of a segment file and every damaged range between them. I/O errors end the
    /// walk with a damage entry for the rest of the file. With `zeroTailIsEnd` (an active segment read to its
    /// file size) an all-zero rest of the file is preallocation, not damage.
    static func walkFrames(
        handle: any StorageFile, segment: UInt32, end: UInt64, start: UInt64 = UInt64(SegmentFormat.segmentHeaderSize),
        path: String, zeroTailIsEnd: Bool, _ visit: (WalkStep) throws -> Void
    ) rethrows {
        let cursor = FrameCursor(handle: handle, start: start, end: end)
        let payloads = PayloadBuffer()
        func damaged(_ offset: UInt64, _ problem: String, _ header: FrameHeader?) throws {
            let next = (try? cursor.findNextIntactFrame(after: offset)) ?? nil
            try visit(.damage(Damage(
                segment: segment, offset: offset, length: (next ?? end) - offset, problem: problem,
                recordsLost: header.map { Int($0.recordCount) }, path: path, firstLSN: header?.baseLSN,
                syncedEnd: header?.syncedEnd)))
            if let next { cursor.skip(to: next) } else { cursor.skip(to: end) }
        }
        while true {
            let step: FrameCursor.Step
            do {
                step = try cursor.next()
            } catch {
                try visit(.damage(Damage(
                    segment: segment, offset: cursor.offset, length: end - cursor.offset, problem: "read failed: \(error)",
                    recordsLost: nil, path: path)))
                return
            }
            switch step {
            case .end:
                return
            case .damage(let offset, let problem, let header):
                if zeroTailIsEnd, header == nil, (try? isZero(handle, from: offset, to: end)) == true { return }
                try damaged(offset, problem, header)
            case .frame(let offset, let header, let stored):
                let raw: UnsafeRawBufferPointer
                switch payloads.raw(header: header, stored: stored) {
                case .failure(let problem):
                    try damaged(offset, problem.what, header)
                    continue
                case .success(let bytes): raw = bytes
                }
                var records: [Record] = []
                let problem = FrameDecoding.forEachRecord(in: raw, header: header, segment: segment, frameOffset: UInt32(offset)) { _, view in
                    records.append(view.record)
                }
                if let problem {
                    try damaged(offset, problem, header)
                } else {
                    try visit(.frame(WalkedFrame(offset: offset, header: header, records: records)))
                }
            }
        }
    }
}
