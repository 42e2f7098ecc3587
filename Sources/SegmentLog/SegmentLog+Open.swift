// Opening a log: lock the directory, read the manifest (or create a new log), remove files an interrupted
// operation left behind, check the sealed segments' headers and sizes, and recover the active segment by
// cutting its tail after the last intact commit frame.

extension SegmentLog {
    /// Opens the log in `directory`, creating the directory and a new log when there is none.
    ///
    /// Opening reads the manifest, checks every sealed segment's header and exact size, and reads the active
    /// segment to find its last intact commit frame (cutting a torn tail after it). Damage inside sealed
    /// segments' frames is found by the reads, scans and ``verify()`` that touch it.
    ///
    /// - Throws: ``StorageError`` with `.locked` when another process has the log open, `.notALog` when the
    ///   directory holds something else, `.formatVersion` when a newer version wrote it, `.corruption` when
    ///   the manifest or a sealed segment's header or size is damaged (see ``salvage(at:configuration:)``).
    public static func open(at directory: String, configuration: Configuration = Configuration()) throws -> SegmentLog {
        try configuration.validate()
        let fs = configuration.fileSystem
        var report = RecoveryReport()
        var lock: (any FileLock)?
        if !configuration.readOnly {
            try fs.createDirectory(at: directory)
            lock = try fs.lock(joinPath(directory, "LOCK"), owner: currentProcessDescription())
        } else if !(try fs.exists(joinPath(directory, Manifest.fileName))) {
            throw StorageError(.notALog, "no Cairn segment log here (MANIFEST is missing)", path: directory)
        }
        do {
            let manifestPath = joinPath(directory, Manifest.fileName)
            let manifest: Manifest
            if try fs.exists(manifestPath) {
                manifest = try Manifest.read(from: directory, fileSystem: fs)
            } else {
                manifest = try createLog(in: directory, fileSystem: fs)
                report.createdNewLog = true
            }
            if !configuration.readOnly {
                report.removedOrphans = try removeOrphans(in: directory, keeping: manifest, fileSystem: fs)
            }
            let state = try recoverState(directory: directory, manifest: manifest, configuration: configuration, report: &report)
            return SegmentLog(directory: directory, configuration: configuration, lock: lock, state: state, report: report)
        } catch {
            lock?.release()
            throw error
        }
    }

    /// Creates segment 1 and the first manifest. A directory with segment files but no manifest is only
    /// accepted when those files hold no frames (a creation that crashed before its manifest was written).
    private static func createLog(in directory: String, fileSystem fs: any FileSystem) throws -> Manifest {
        let ignorable: Set<String> = ["LOCK", Manifest.temporaryFileName]
        for name in try fs.contentsOfDirectory(at: directory) where !ignorable.contains(name) {
            let path = joinPath(directory, name)
            guard SegmentFormat.segmentID(fromFileName: name) != nil else {
                throw StorageError(
                    .notALog, "the directory is not empty and holds no Cairn log (found '\(name)')", path: directory)
            }
            let handle = try fs.open(path, .readOnly)
            let size = try handle.size()
            try handle.close()
            guard size <= UInt64(SegmentFormat.segmentHeaderSize) else {
                throw StorageError(
                    .corruption, "MANIFEST is missing but segment \(name) holds \(size) bytes; run salvage to recover it",
                    path: path)
            }
            try fs.removeFile(at: path)
        }
        let cacheID = UInt64.random(in: 1...UInt64.max)
        try createSegmentFile(id: 1, cacheID: cacheID, in: directory, fileSystem: fs).close()
        let manifest = Manifest(
            generation: 1, cacheID: cacheID, nextSegmentID: 2, lsnFloor: 1,
            entries: [.active(1)])
        try manifest.write(to: directory, fileSystem: fs)
        return manifest
    }

    /// Creates a segment file with its header, synced, and syncs the directory. With `sync` false, neither is
    /// synced: for a compaction output or a roll's new segment, which no manifest names before a publication on
    /// the publisher queue syncs it and the directory.
    static func createSegmentFile(
        id: UInt32, cacheID: UInt64, in directory: String, fileSystem fs: any FileSystem, sync: Bool = true
    ) throws -> any StorageFile {
        guard id >= 1 && id <= SegmentFormat.maxSegmentID else {
            throw StorageError(.invalidArgument, "segment ids are used up (\(id)); salvage the log to renumber its segments", path: directory)
        }
        let handle = try fs.open(joinPath(directory, SegmentFormat.segmentFileName(id)), .createNew)
        do {
            try handle.write(SegmentFormat.encodeSegmentHeader(id: id, cacheID: cacheID), at: 0)
            if sync {
                try handle.sync()
                try fs.syncDirectory(at: directory)
            }
        } catch {
            try? handle.close()
            throw error
        }
        return handle
    }

    /// Removes segment files the manifest does not name and a stale MANIFEST.tmp.
    private static func removeOrphans(in directory: String, keeping manifest: Manifest, fileSystem fs: any FileSystem) throws -> [String] {
        let live = Set(manifest.entries.map(\.id))
        var removed: [String] = []
        for name in try fs.contentsOfDirectory(at: directory).sorted() {
            if let id = SegmentFormat.segmentID(fromFileName: name), !live.contains(id) {
                removed.append(name)
            } else if name == Manifest.temporaryFileName {
                removed.append(name)
            }
        }
        for name in removed { try fs.removeFile(at: joinPath(directory, name)) }
        if !removed.isEmpty { try fs.syncDirectory(at: directory) }
        return removed
    }

    private static func recoverState(
        directory: String, manifest: Manifest, configuration: Configuration, report: inout RecoveryReport
    ) throws -> State {
        let fs = configuration.fileSystem
        var segments: [UInt32: SegmentEntry] = [:]
        var opened: [any StorageFile] = []
        do {
            var nextLSN = max(manifest.lsnFloor, 1)
            for entry in manifest.entries {
                let path = joinPath(directory, SegmentFormat.segmentFileName(entry.id))
                let handle: any StorageFile
                do {
                    handle = try fs.open(path, entry.isActive && !configuration.readOnly ? .readWrite : .readOnly)
                } catch let error as StorageError where error.code == .notFound {
                    throw StorageError(.corruption, "segment \(entry.id) named by the manifest is missing", path: path)
                }
                opened.append(handle)
                try SegmentFormat.checkSegmentHeader(
                    try handle.read(at: 0, count: SegmentFormat.segmentHeaderSize), id: entry.id, cacheID: manifest.cacheID,
                    path: path)
                var segment = SegmentEntry(id: entry.id, handle: handle, isActive: entry.isActive, length: entry.length)
                if entry.isActive {
                    try recoverActive(&segment, path: path, readOnly: configuration.readOnly, report: &report)
                } else {
                    let size = try handle.size()
                    guard size == entry.length else {
                        throw StorageError(
                            .corruption,
                            "sealed segment \(entry.id) is \(size) bytes but the manifest says \(entry.length); "
                                + "run salvage to keep every intact frame", path: path, offset: min(size, entry.length))
                    }
                    segment.noteRecords(count: entry.recordCount, bytes: entry.recordBytes, minLSN: entry.minLSN, maxLSN: entry.maxLSN)
                }
                if segment.recordCount > 0 { nextLSN = max(nextLSN, segment.maxLSN + 1) }
                report.recordCount += segment.recordCount
                segments[entry.id] = segment
            }
            let active = segments[manifest.entries.last!.id]!
            // What recovery kept is made durable before anything is appended, so that the synced mark new
            // frames carry is true even if the last writer's unsynced data is still only in the page cache.
            if !configuration.readOnly && active.length > UInt64(SegmentFormat.segmentHeaderSize) {
                try active.handle.sync()
            }
            return State(
                generation: manifest.generation, cacheID: manifest.cacheID, nextSegmentID: manifest.nextSegmentID,
                order: manifest.entries.map(\.id), segments: segments, activeID: active.id,
                allocatedEnd: try active.handle.size(), nextLSN: nextLSN,
                cache: FrameCache(capacity: configuration.frameCacheBytes), poisoned: nil, syncedEnd: active.length)
        } catch {
            for handle in opened { try? handle.close() }
            throw error
        }
    }

    /// Reads the active segment's frames up to the last intact commit frame. What follows is either a torn
    /// tail — a write that was never acknowledged as durable, which is cut — or damage to durable data, which
    /// is corruption: an intact frame after the stop says (its `syncedEnd`) that bytes past the last commit
    /// frame had already been synced when it was written. Corruption is never cut: a writer gets
    /// `.corruption` naming the damage, a read-only opener reads up to it and lists it in the report.
    private static func recoverActive(
        _ segment: inout SegmentEntry, path: String, readOnly: Bool, report: inout RecoveryReport
    ) throws {
        let size = try segment.handle.size()
        let cursor = FrameCursor(handle: segment.handle, end: size)
        var commitPoint = UInt64(SegmentFormat.segmentHeaderSize)
        var pending: [FrameHeader] = []
        var problem: String?
        var syncedMark: UInt64 = 0
        scanning: while true {
            switch try cursor.next() {
            case .end:
                break scanning
            case .damage(let offset, let what, _):
                if cursor.lastDamageIsNewerFormat {
                    throw StorageError(.formatVersion, "segment \(segment.id) at offset \(offset): \(what)", path: path, offset: offset)
                }
                problem = what
                break scanning
            case .frame(let offset, let header, _):
                syncedMark = max(syncedMark, UInt64(header.syncedEnd))
                pending.append(header)
                if header.isCommit {
                    for frame in pending {
                        segment.noteRecords(
                            count: UInt64(frame.recordCount), bytes: UInt64(frame.rawLength), minLSN: frame.baseLSN,
                            maxLSN: frame.endLSN - 1)
                    }
                    pending.removeAll()
                    commitPoint = offset + UInt64(header.frameSize)
                }
            }
        }
        segment.length = commitPoint
        guard size > commitPoint else { return }
        let stop = cursor.offset
        let zeroTail = try pending.isEmpty && isZero(segment.handle, from: commitPoint, to: size)
        if zeroTail { return }
        // Every intact header after the stop tells how far the segment was durable when it was written.
        var damage: [Damage] = []
        walkFrames(handle: segment.handle, segment: segment.id, end: size, start: stop, path: path, zeroTailIsEnd: true) { step in
            switch step {
            case .frame(let frame): syncedMark = max(syncedMark, UInt64(frame.header.syncedEnd))
            case .damage(let found):
                if let mark = found.syncedEnd { syncedMark = max(syncedMark, UInt64(mark)) }
                damage.append(found)
            }
        }
        if syncedMark > commitPoint {
            if damage.isEmpty || damage[0].offset != stop {
                // The stop was an intact but unfinished batch's frames running into damage further on.
                damage.insert(Damage(
                    segment: segment.id, offset: stop, length: 0, problem: problem ?? "unfinished batch before damage",
                    recordsLost: nil, path: path), at: 0)
            }
            if !pending.isEmpty {
                damage[0].offset = commitPoint
                damage[0].problem += " (and the \(pending.count) intact frame(s) of its batch before it)"
            }
            if readOnly {
                report.activeSegmentDamage = damage
                return
            }
            throw StorageError(
                .corruption,
                "active segment \(segment.id) is damaged at offset \(damage[0].offset) (\(damage[0].problem)), but intact "
                    + "frames after it were written when the segment was durable up to offset \(syncedMark): acknowledged "
                    + "commits lie past the damage, so nothing was cut; run salvage to keep every intact frame",
                path: path, offset: damage[0].offset)
        }
        report.truncatedBytes += size - commitPoint
        report.discardedFrames += pending.count
        report.tailProblem = problem.map { "segment \(segment.id) at offset \(stop): \($0)" }
            ?? "segment \(segment.id): \(pending.count) frame(s) of an unfinished batch"
        if !readOnly {
            try segment.handle.truncate(to: commitPoint)
            try segment.handle.sync()
        }
    }
}
