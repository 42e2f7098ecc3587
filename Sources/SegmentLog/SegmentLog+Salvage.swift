// Salvage rebuilds a damaged log from every intact frame. It reads each segment (the ones the manifest names,
// or every segment file when the manifest itself is unreadable), copies the records of intact frames into
// new sealed segments, writes a manifest naming only those, and then deletes the old files. Frames of a batch
// whose commit frame was lost are dropped with it, and after a damaged range the frames that continue a batch
// (no `first` flag) are dropped too, so salvage never exposes half a batch and one damaged frame costs only
// the batches it held. Segments of another log (their header names another cache id) are skipped and
// reported. Like compaction it is crash-safe: until the new
// manifest is in place the new files are orphans. (When the manifest itself is unreadable, segments are read
// in id order; a salvage that crashes in that case may, on its next run, copy some records twice — same LSN,
// same contents.)

/// What ``SegmentLog/salvage(at:configuration:)`` kept and lost.
public struct SalvageReport: Sendable {
    /// Every damaged range that was skipped.
    public var damage: [Damage] = []
    public var recordsKept: UInt64 = 0
    public var framesKept = 0
    /// Intact frames dropped because their batch's commit frame was damaged or missing, or because they
    /// continued a batch whose start was damaged.
    public var framesOfUnfinishedBatches = 0
    /// The records those frames held.
    public var recordsOfUnfinishedBatches = 0
    /// Segment files read.
    public var segmentsRead: [UInt32] = []
    /// True when the manifest was unreadable and every segment file in the directory was read instead.
    public var manifestWasUnreadable = false
}

extension SegmentLog {
    /// Rebuilds the log in `directory` from its intact frames, reporting every damaged range.
    /// Use it when ``open(at:configuration:)`` reports `.corruption` and losing the damaged frames is better
    /// than losing the whole log. The directory is locked while salvage runs.
    public static func salvage(at directory: String, configuration: Configuration = Configuration()) throws -> SalvageReport {
        try configuration.validate()
        let fs = configuration.fileSystem
        let lock = try fs.lock(joinPath(directory, "LOCK"), owner: currentProcessDescription())
        defer { lock.release() }
        var report = SalvageReport()
        let names = try fs.contentsOfDirectory(at: directory)
        let filesOnDisk = names.compactMap(SegmentFormat.segmentID(fromFileName:)).sorted()
        var sources: [UInt32]
        var lsnFloor: UInt64 = 1
        var cacheID: UInt64?
        do {
            let manifest = try Manifest.read(from: directory, fileSystem: fs)
            sources = manifest.entries.map(\.id).filter { filesOnDisk.contains($0) }
            lsnFloor = manifest.lsnFloor
            cacheID = manifest.cacheID
        } catch let error as StorageError where error.code == .corruption || error.code == .notFound || error.code == .notALog {
            guard !filesOnDisk.isEmpty else {
                throw StorageError(.notALog, "nothing to salvage: no segment files", path: directory)
            }
            report.manifestWasUnreadable = true
            sources = filesOnDisk
        }
        // Each source's cache id, where its header is intact. Without a manifest, the log is the id most
        // segments carry (the newest segment's among equals).
        var headerIDs: [UInt32: UInt64] = [:]
        for id in sources {
            let path = joinPath(directory, SegmentFormat.segmentFileName(id))
            if let handle = try? fs.open(path, .readOnly) {
                let bytes = (try? handle.read(at: 0, count: SegmentFormat.segmentHeaderSize)) ?? []
                headerIDs[id] = try? SegmentFormat.checkSegmentHeader(bytes, id: id, cacheID: nil, path: path)
                try? handle.close()
            }
        }
        if cacheID == nil {
            var votes: [UInt64: (count: Int, newest: UInt32)] = [:]
            for (id, cache) in headerIDs {
                let vote = votes[cache] ?? (0, 0)
                votes[cache] = (vote.count + 1, max(vote.newest, id))
            }
            cacheID = votes.max { ($0.value.count, $0.value.newest) < ($1.value.count, $1.value.newest) }?.key
        }
        let logID = cacheID ?? UInt64.random(in: 1...UInt64.max)
        guard let highest = filesOnDisk.max(), highest < SegmentFormat.maxSegmentID - 1 else {
            throw StorageError(.invalidArgument, "segment ids are used up; copy the log's records into a new log", path: directory)
        }
        var nextID = highest + 1
        var outputs: [SegmentBuilder] = []
        var current: SegmentBuilder?
        /// Copies a record into the current output segment, starting a new one when it is full.
        func keep(_ record: Record) throws {
            if current == nil {
                current = try SegmentBuilder(id: nextID, cacheID: logID, directory: directory, configuration: configuration)
                nextID += 1
            }
            let builder = current!
            record.key.withUnsafeBytes { key in
                record.value.withUnsafeBytes { value in
                    builder.add(RecordView(kind: record.kind, lsn: record.lsn, location: record.location, key: key, value: value))
                }
            }
            report.recordsKept += 1
            lsnFloor = max(lsnFloor, record.lsn + 1)
            _ = try builder.writeFinishedFrames()
            if builder.estimatedSize >= UInt64(configuration.segmentTargetSize) {
                _ = try builder.seal()
                outputs.append(builder)
                current = nil
            }
        }
        do {
            for id in sources {
                let path = joinPath(directory, SegmentFormat.segmentFileName(id))
                if let foreign = headerIDs[id], foreign != logID {
                    report.damage.append(Damage(
                        segment: id, offset: 16, length: 0,
                        problem: "the segment belongs to another log (cache id \(SegmentFormat.hex(foreign))); skipped",
                        recordsLost: nil, path: path))
                    continue
                }
                report.segmentsRead.append(id)
                let handle = try fs.open(path, .readOnly)
                defer { try? handle.close() }
                var pending: [WalkedFrame] = []
                // After damage the next frames may continue a batch whose start was lost: frames without the
                // `first` flag are dropped until one starts a batch again.
                var afterDamage = false
                func dropPending() {
                    report.framesOfUnfinishedBatches += pending.count
                    report.recordsOfUnfinishedBatches += pending.reduce(0) { $0 + $1.records.count }
                    pending.removeAll()
                }
                try walkFrames(handle: handle, segment: id, end: try handle.size(), path: path, zeroTailIsEnd: id == sources.last) { step in
                    switch step {
                    case .damage(let damage):
                        report.damage.append(damage)
                        dropPending()
                        afterDamage = true
                    case .frame(let frame):
                        if afterDamage && !frame.header.isFirst {
                            report.framesOfUnfinishedBatches += 1
                            report.recordsOfUnfinishedBatches += frame.records.count
                            return
                        }
                        afterDamage = false
                        // A frame that starts a batch while another one is unfinished: that batch's end is lost.
                        if frame.header.isFirst { dropPending() }
                        pending.append(frame)
                        guard frame.header.isCommit else { return }
                        for kept in pending {
                            report.framesKept += 1
                            for record in kept.records { try keep(record) }
                        }
                        pending.removeAll()
                    }
                }
                dropPending()
            }
            if let builder = current {
                _ = try builder.seal()
                outputs.append(builder)
                current = nil
            }
            let activeID = nextID
            try createSegmentFile(id: activeID, cacheID: logID, in: directory, fileSystem: fs).close()
            let manifest = Manifest(
                generation: 1, cacheID: logID, nextSegmentID: activeID + 1, lsnFloor: lsnFloor,
                entries: outputs.map(\.manifestEntry)
                    + [.active(activeID)])
            try manifest.write(to: directory, fileSystem: fs)
        } catch {
            for builder in outputs { builder.discard() }
            current?.discard()
            throw error
        }
        for builder in outputs { try? builder.handle.close() }
        for id in filesOnDisk { try? fs.removeFile(at: joinPath(directory, SegmentFormat.segmentFileName(id))) }
        try fs.syncDirectory(at: directory)
        return report
    }
}
