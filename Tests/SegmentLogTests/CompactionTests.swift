import CairnTestSupport
import Testing
@testable import SegmentLog

/// Live/dead accounting and compaction: what is dropped, what is kept and where it moved, what happens on
/// disk, incremental steps interleaved with commits, invalid requests, reopen, and abandoned compactions.
@Suite("Compaction")
struct CompactionTests {
    /// A log on the simulated file system with many small sealed segments, and everything committed to it.
    final class Fixture {
        let fs: SimulatedFileSystem
        var log: SegmentLog
        /// Every committed record, in LSN order, with the location the commit returned.
        var records: [Record] = []
        /// Key → location of the newest record for the key: the view a layer above would keep.
        var latest: [[UInt8]: RecordLocation] = [:]
        var random: SeededRandom

        init(seed: UInt64, batches: Int, keySpace: Int = 30, keyPrefix: String = "doc") throws {
            fs = SimulatedFileSystem(seed: seed)
            log = try SegmentLog.open(at: "/db", configuration: .small(fs))
            random = SeededRandom(seed: seed)
            for _ in 0..<batches { try commitBatch(keySpace: keySpace, keyPrefix: keyPrefix) }
        }

        @discardableResult
        func commitBatch(keySpace: Int = 30, keyPrefix: String = "doc") throws -> [Record] {
            var batch = WriteBatch()
            var pending: [(UInt8, [UInt8], [UInt8])] = []
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let n = Int(random.next() % UInt64(keySpace))
                let key = bytes("\(keyPrefix)/\(n)")
                let kind = UInt8(random.next() % 4)
                let value = documentValue(n, size: 80 + Int(random.next() % 250), using: &random)
                batch.append(kind: kind, key: key, value: value)
                pending.append((kind, key, value))
            }
            let firstLSN = log.statistics.nextLSN
            let locations = try log.commit(batch)
            var committed: [Record] = []
            for (i, (kind, key, value)) in pending.enumerated() {
                let record = Record(kind: kind, key: key, value: value, lsn: firstLSN + UInt64(i), location: locations[i])
                committed.append(record)
                latest[key] = record.location
            }
            records += committed
            return committed
        }

        var sealed: [UInt32] { log.statistics.segments.filter { !$0.isActive }.map(\.id) }
        var activeID: UInt32 { log.statistics.segments.first { $0.isActive }!.id }

        func records(in segment: UInt32) -> [Record] { records.filter { $0.location.segment == segment } }

        /// The names of the segment files on the simulated disk.
        var segmentFiles: Set<String> { Set(fs.fileNames(in: "/db").filter { $0.hasSuffix(".seg") }) }
        /// The segment files the log's statistics name.
        var namedSegmentFiles: Set<String> { Set(log.statistics.segments.map { SegmentFormat.segmentFileName($0.id) }) }

        /// Applies a finished compaction to `records` and `latest`: drops what it dropped, moves what it moved.
        func apply(_ summary: CompactionSummary) {
            let moves = Dictionary(uniqueKeysWithValues: summary.relocations.map { ($0.from, $0.to) })
            let inputs = Set(summary.inputs)
            records = records.compactMap { record in
                guard inputs.contains(record.location.segment) else { return record }
                guard let to = moves[record.location] else { return nil }
                var moved = record
                moved.location = to
                return moved
            }
            for move in summary.relocations where latest[move.key] == move.from { latest[move.key] = move.to }
        }

        func reopen() throws {
            try log.close()
            log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        }
    }

    /// Record content and LSN, without the location.
    static func same(_ a: Record, _ b: Record) -> Bool {
        a.kind == b.kind && a.key == b.key && a.value == b.value && a.lsn == b.lsn
    }

    /// Runs a compaction to its end.
    static func finish(_ compaction: Compaction, budget: Int = 4 << 20) throws -> (CompactionSummary, steps: Int) {
        var steps = 0
        while true {
            steps += 1
            if let summary = try compaction.step(budget: budget) { return (summary, steps) }
            if steps > 100_000 { throw StorageError(.invalidArgument, "compaction does not finish") }
        }
    }

    /// The log's records keyed by LSN.
    static func byLSN(_ log: SegmentLog) throws -> [UInt64: Record] {
        var result: [UInt64: Record] = [:]
        for record in try allRecords(log) {
            #expect(result[record.lsn] == nil, "LSN \(record.lsn) appears twice")
            result[record.lsn] = record
        }
        return result
    }

    // MARK: Accounting

    @Test("retiring records updates statistics exactly: dead bytes are the retired locations' sizes; retiring twice changes nothing")
    func retireAccounting() throws {
        let f = try Fixture(seed: 1, batches: 120)
        let stats = f.log.statistics
        #expect(stats.segments.count >= 4)
        #expect(stats.deadRecordBytes == 0 && stats.segments.allSatisfy { $0.deadRecordCount == 0 })
        // Record counts and bytes per segment are the sums over what the commits returned.
        for segment in stats.segments {
            let mine = f.records(in: segment.id)
            #expect(segment.recordCount == UInt64(mine.count), "segment \(segment.id) record count")
            #expect(segment.recordBytes == mine.reduce(0) { $0 + UInt64($1.location.size) }, "segment \(segment.id) record bytes")
        }
        var retired: [RecordLocation] = []
        for record in f.records where f.random.next() % 3 == 0 { retired.append(record.location) }
        for location in retired { f.log.retire(location) }

        func check(_ label: String) {
            let after = f.log.statistics
            for segment in after.segments {
                let dead = retired.filter { $0.segment == segment.id }
                #expect(segment.deadRecordCount == UInt64(dead.count), "\(label): segment \(segment.id) dead count")
                #expect(segment.deadRecordBytes == dead.reduce(0) { $0 + UInt64($1.size) }, "\(label): segment \(segment.id) dead bytes")
                #expect(segment.liveRecordBytes == segment.recordBytes - segment.deadRecordBytes)
                #expect(segment.recordCount == UInt64(f.records(in: segment.id).count), "\(label): retiring removes nothing")
            }
            #expect(after.deadRecordBytes == retired.reduce(0) { $0 + UInt64($1.size) }, "\(label)")
            #expect(after.liveRecordCount == UInt64(f.records.count - retired.count), "\(label)")
            #expect(after.fileBytes == stats.fileBytes, "\(label): retiring writes nothing")
        }
        check("after retiring")
        let retiredSet = Set(retired)
        for record in f.records {
            #expect(f.log.isRetired(record.location) == retiredSet.contains(record.location), "isRetired(\(record.location))")
        }
        // Twice, and a location in a segment that does not exist: no change.
        for location in retired { f.log.retire(location) }
        f.log.retire(RecordLocation(segment: 9999, frameOffset: 28, index: 0, size: 100))
        check("after retiring again")
        // Retired records are still readable until compaction drops them.
        #expect(Self.same(try f.log.read(retired[0]), f.records.first { $0.location == retired[0] }!))
        try f.log.close()
    }

    @Test("compactionCandidates lists only sealed segments at or over the ratio, dirtiest first")
    func candidates() throws {
        let f = try Fixture(seed: 2, batches: 150)
        let sealed = f.sealed
        try #require(sealed.count >= 5)
        // Retire a different share of each sealed segment (by count; the ratio is by bytes), all of the active one.
        let shares = [0.9, 0.2, 0.65, 0.0, 0.45]
        var ratio: [UInt32: Double] = [:]
        for (n, id) in sealed.enumerated() {
            let mine = f.records(in: id)
            let share = shares[n % shares.count]
            let dead = mine.prefix(Int((Double(mine.count) * share).rounded()))
            for record in dead { f.log.retire(record.location) }
            let total = mine.reduce(0) { $0 + Double($1.location.size) }
            ratio[id] = dead.reduce(0) { $0 + Double($1.location.size) } / total
        }
        for record in f.records(in: f.activeID) { f.log.retire(record.location) }
        #expect(f.log.statistics.segments.first { $0.isActive }!.deadRatio == (f.records(in: f.activeID).isEmpty ? 0 : 1))

        for threshold in [0.0, 0.1, 0.3, 0.5, 0.8, 0.95] {
            let expected = sealed.filter { ratio[$0]! >= threshold }.sorted { ratio[$0]! > ratio[$1]! }
            let found = f.log.compactionCandidates(minimumDeadRatio: threshold)
            // Equal ratios may come in either order; compare the ratio sequence and the set.
            #expect(Set(found) == Set(expected), "threshold \(threshold)")
            #expect(found.map { ratio[$0]! } == expected.map { ratio[$0]! }, "threshold \(threshold): dirtiest first")
            #expect(!found.contains(f.activeID), "threshold \(threshold): never the active segment")
        }
        #expect(f.log.compactionCandidates(minimumDeadRatio: 0.5).count >= 2)
        try f.log.close()
    }

    // MARK: What compaction keeps

    @Test("compaction drops retired and rejected records, keeps the rest unchanged, and reports where each moved")
    func keepsAndDrops() throws {
        let f = try Fixture(seed: 3, batches: 140, keySpace: 150)
        let inputs = Array(f.sealed.prefix(3))
        try #require(inputs.count == 3)
        // Retire a few records outright; the oracle rejects superseded ones (not the newest for their key).
        var retired = Set<RecordLocation>()
        for record in f.records where inputs.contains(record.location.segment) && f.random.next() % 5 == 0 {
            f.log.retire(record.location)
            retired.insert(record.location)
        }
        let inInputs = f.records.filter { inputs.contains($0.location.segment) }
        let kept = inInputs.filter { !retired.contains($0.location) && f.latest[$0.key] == $0.location }
        let dropped = inInputs.filter { retired.contains($0.location) || f.latest[$0.key] != $0.location }
        try #require(!kept.isEmpty && dropped.contains { !retired.contains($0.location) } && !retired.isEmpty)
        let untouched = f.records.filter { !inputs.contains($0.location.segment) }
        let recordCountBefore = f.log.statistics.recordCount
        let nextLSNBefore = f.log.statistics.nextLSN

        let latest = f.latest
        var asked = 0
        let compaction = try f.log.makeCompaction(of: inputs) { view in
            asked += 1
            return latest[view.keyBytes] == view.location
        }
        #expect(compaction.inputs == inputs)
        let (summary, _) = try Self.finish(compaction)
        #expect(summary.inputs == inputs)
        #expect(summary.recordsKept == kept.count)
        #expect(summary.recordsDropped == dropped.count)
        #expect(asked == inInputs.count - retired.count, "the oracle is asked about every record not retired")
        #expect(summary.relocations.count == kept.count, "one relocation per kept record")
        #expect(Set(summary.relocations.map(\.from)) == Set(kept.map(\.location)))
        let outputs = Set(summary.outputs)
        #expect(!outputs.isEmpty && outputs.isDisjoint(with: inputs))
        let original = Dictionary(uniqueKeysWithValues: f.records.map { ($0.location, $0) })
        for move in summary.relocations {
            let before = try #require(original[move.from])
            #expect(move.key == before.key)
            #expect(outputs.contains(move.to.segment), "\(move.to) is in an output segment")
            let after = try f.log.read(move.to)
            #expect(Self.same(after, before), "LSN \(before.lsn) reads back unchanged at \(move.to)")
            #expect(after.location == move.to)
            #expect(move.to.size == after.location.size)
        }
        // The inputs are gone: their old locations no longer read.
        for record in inInputs.prefix(20) {
            #expect(throws: StorageError.self, "old location \(record.location)") { try f.log.read(record.location) }
        }
        // Everything else is where it was; the scan holds exactly kept + untouched records.
        for record in untouched.prefix(50) { #expect(try f.log.read(record.location) == record) }
        let scanned = try Self.byLSN(f.log)
        #expect(Set(scanned.keys) == Set((kept + untouched).map(\.lsn)))
        for record in kept + untouched { #expect(Self.same(scanned[record.lsn]!, record), "LSN \(record.lsn)") }
        let stats = f.log.statistics
        #expect(stats.recordCount == recordCountBefore - UInt64(dropped.count))
        #expect(stats.nextLSN == nextLSNBefore, "compaction assigns no sequence numbers")
        #expect(!stats.segments.contains { inputs.contains($0.id) })
        #expect(stats.segments.filter { outputs.contains($0.id) }.allSatisfy { !$0.isActive && $0.deadRecordCount == 0 })
        try f.log.close()
    }

    @Test("compaction frees disk space: statistics and the real files shrink, and the input files are deleted")
    func bytesFall() throws {
        let f = try Fixture(seed: 4, batches: 150, keySpace: 20)
        let inputs = Array(f.sealed.prefix(4))
        // Retire everything superseded, as a layer above would.
        for record in f.records where f.latest[record.key] != record.location { f.log.retire(record.location) }
        let before = f.log.statistics
        let inputFiles = inputs.map { SegmentFormat.segmentFileName($0) }
        var inputBytes: UInt64 = 0
        for (id, name) in zip(inputs, inputFiles) {
            let size = UInt64(try #require(f.fs.bytes(of: "/db/" + name)).count)
            #expect(size == before.segments.first { $0.id == id }!.fileBytes, "sealed segment \(id) file size")
            inputBytes += size
        }
        let filesBefore = f.segmentFiles
        let diskBefore = filesBefore.reduce(0) { $0 + f.fs.bytes(of: "/db/" + $1)!.count }

        let (summary, _) = try Self.finish(try f.log.makeCompaction(of: inputs) { _ in true })
        // The log's publisher queue deletes the inputs once the log has switched to the outputs.
        f.log.publisher.sync {}
        let after = f.log.statistics
        #expect(summary.bytesBefore == inputBytes)
        #expect(summary.bytesAfter < summary.bytesBefore / 2, "most records were dead: \(summary.bytesAfter) of \(summary.bytesBefore)")
        #expect(after.fileBytes == before.fileBytes - summary.bytesBefore + summary.bytesAfter)
        #expect(after.fileBytes < before.fileBytes)
        let filesAfter = f.segmentFiles
        for name in inputFiles { #expect(!filesAfter.contains(name), "input \(name) was deleted") }
        #expect(filesAfter == f.namedSegmentFiles, "exactly the segments the log names are on disk")
        let outputBytes = summary.outputs.reduce(0) { $0 + f.fs.bytes(of: "/db/" + SegmentFormat.segmentFileName($1))!.count }
        #expect(UInt64(outputBytes) == summary.bytesAfter)
        let diskAfter = filesAfter.reduce(0) { $0 + f.fs.bytes(of: "/db/" + $1)!.count }
        #expect(diskAfter == diskBefore - Int(summary.bytesBefore) + outputBytes, "the disk holds \(diskBefore - diskAfter) bytes less")
        #expect(after.deadRecordBytes == before.deadRecordBytes - before.segments.filter { inputs.contains($0.id) }.reduce(0) { $0 + $1.deadRecordBytes })
        try f.log.close()
    }

    @Test("clusterByKey writes the survivors in key order (LSN order within a key)")
    func clusterByKey() throws {
        let f = try Fixture(seed: 5, batches: 120, keySpace: 200)
        let inputs = Array(f.sealed.prefix(3))
        let inputKeys = f.records.filter { inputs.contains($0.location.segment) }.map(\.key)
        try #require(!inputKeys.elementsEqual(inputKeys.sorted { $0.lexicographicallyPrecedes($1) }), "inputs are not sorted already")
        let (summary, _) = try Self.finish(try f.log.makeCompaction(of: inputs, clusterByKey: true) { _ in true })
        #expect(summary.recordsKept == inputKeys.count)
        let outputs = Set(summary.outputs)
        let clustered = try allRecords(f.log).filter { outputs.contains($0.location.segment) }
        #expect(clustered.count == inputKeys.count)
        for (a, b) in zip(clustered, clustered.dropFirst()) {
            let inOrder = a.key.lexicographicallyPrecedes(b.key) || (a.key == b.key && a.lsn < b.lsn)
            #expect(inOrder, "\(String(decoding: a.key, as: UTF8.self))@\(a.lsn) before \(String(decoding: b.key, as: UTF8.self))@\(b.lsn)")
        }
        // Relocations still describe every move, and the records read back.
        let original = Dictionary(uniqueKeysWithValues: f.records.map { ($0.location, $0) })
        for move in summary.relocations { #expect(Self.same(try f.log.read(move.to), original[move.from]!)) }
        #expect(summary.relocations.count == inputKeys.count)
        try f.log.close()
    }

    // MARK: Incremental

    @Test("compaction is incremental: small steps interleave with commits, and a record retired mid-way stays dead at its new place")
    func incremental() throws {
        let f = try Fixture(seed: 6, batches: 150)
        let inputs = Array(f.sealed.prefix(3))
        try #require(inputs.count == 3)
        let inInputs = f.records.filter { inputs.contains($0.location.segment) }
        let firstRecord = inInputs.first!  // in the first frame of the first input: copied by the first step
        let lastRecord = inInputs.last!  // in the last frame of the last input: not yet scanned early on
        let deadBefore = f.log.statistics.deadRecordBytes

        let compaction = try f.log.makeCompaction(of: inputs) { _ in true }
        var steps = 0
        var summary: CompactionSummary?
        var between: [Record] = []
        while summary == nil {
            summary = try compaction.step(budget: 300)
            steps += 1
            if steps == 1 {
                // Retired after it was copied: dropped from nothing, but dead at its new location.
                f.log.retire(firstRecord.location)
                // Retired before it was scanned: dropped.
                f.log.retire(lastRecord.location)
            }
            if summary == nil && steps % 2 == 0 {
                between += try f.commitBatch(keySpace: 10, keyPrefix: "other")
            }
            // Commits made so far read back while the compaction is in progress.
            if let last = between.last { #expect(try f.log.read(last.location) == last) }
        }
        let result = try #require(summary)
        #expect(steps > 10, "a 300-byte budget takes many steps, not \(steps)")
        #expect(between.count > 5)

        let moved = try #require(result.relocations.first { $0.from == firstRecord.location }, "the record retired mid-way was copied")
        #expect(f.log.isRetired(moved.to), "the retirement carried over to \(moved.to)")
        #expect(!result.relocations.contains { $0.from == lastRecord.location }, "the record retired before its scan was dropped")
        #expect(result.recordsDropped == 1 && result.recordsKept == inInputs.count - 1)
        let outputs = Set(result.outputs)
        let outputStats = f.log.statistics.segments.filter { outputs.contains($0.id) }
        #expect(outputStats.reduce(0) { $0 + $1.deadRecordCount } == 1)
        #expect(outputStats.reduce(0) { $0 + $1.deadRecordBytes } == UInt64(moved.to.size))
        #expect(f.log.statistics.deadRecordBytes == deadBefore + UInt64(moved.to.size), "exactly the carried-over record is dead")

        // The commits made between steps are untouched by the compaction.
        for record in between { #expect(try f.log.read(record.location) == record) }
        f.apply(result)
        let scanned = try Self.byLSN(f.log)
        #expect(scanned.count == f.records.count)
        for record in f.records { #expect(scanned[record.lsn] == record, "LSN \(record.lsn)") }
        try f.log.close()
    }

    // MARK: Invalid requests

    @Test("compacting the active segment, an unknown segment, a segment already being compacted, or nothing is invalidArgument")
    func invalidRequests() throws {
        let f = try Fixture(seed: 7, batches: 80)
        let sealed = f.sealed
        try #require(sealed.count >= 2)
        let filesBefore = f.segmentFiles
        func expectInvalid(_ what: String, _ segments: [UInt32]) {
            expectStorageError(.invalidArgument, what) { _ = try f.log.makeCompaction(of: segments) { _ in true } }
        }
        expectInvalid("the active segment", [f.activeID])
        expectInvalid("sealed plus active", [sealed[0], f.activeID])
        expectInvalid("an unknown segment", [9999])
        expectInvalid("no segments", [])
        expectInvalid("a segment listed twice", [sealed[0], sealed[0]])
        let running = try f.log.makeCompaction(of: [sealed[0]]) { _ in true }
        expectInvalid("a segment already being compacted", [sealed[0]])
        expectInvalid("a list including a segment being compacted", [sealed[1], sealed[0]])
        // The failed request did not reserve the other segment.
        let other = try f.log.makeCompaction(of: [sealed[1]]) { _ in true }
        withExtendedLifetime(running) {}
        withExtendedLifetime(other) {}
        #expect(f.segmentFiles == filesBefore, "no request wrote a file")
        try f.log.close()
    }

    @Test("dropping an unfinished compaction releases its inputs for another one")
    func droppedCompactionReleasesInputs() throws {
        let f = try Fixture(seed: 8, batches: 80)
        let id = f.sealed[0]
        do {
            let first = try f.log.makeCompaction(of: [id]) { _ in true }
            _ = try first.step(budget: 100)
        }
        let (summary, _) = try Self.finish(try f.log.makeCompaction(of: [id]) { _ in true })
        #expect(summary.inputs == [id])
        #expect(summary.recordsKept == f.records(in: id).count)
        try f.log.close()
    }

    // MARK: Reopen and abandon

    @Test("after reopen, every compacted record is still there and nothing dropped reappears")
    func reopenAfterCompaction() throws {
        let f = try Fixture(seed: 9, batches: 160, keySpace: 20)
        for record in f.records where f.latest[record.key] != record.location && f.random.next() % 2 == 0 {
            f.log.retire(record.location)
        }
        // Two compactions: dirtiest segments (oracle from the view), then the rest clustered.
        let latest = f.latest
        let first = Array(f.log.compactionCandidates(minimumDeadRatio: 0.2).prefix(2))
        try #require(!first.isEmpty)
        let (one, _) = try Self.finish(try f.log.makeCompaction(of: first) { latest[$0.keyBytes] == $0.location })
        f.apply(one)
        try f.commitBatch()
        let rest = f.sealed.filter { !one.outputs.contains($0) }
        try #require(!rest.isEmpty)
        let latest2 = f.latest
        let (two, _) = try Self.finish(try f.log.makeCompaction(of: rest, clusterByKey: true) { latest2[$0.keyBytes] == $0.location })
        f.apply(two)
        #expect(one.recordsDropped + two.recordsDropped > 0)

        let beforeReopen = try Self.byLSN(f.log)
        let nextLSN = f.log.statistics.nextLSN
        try f.reopen()
        #expect(f.log.recoveryReport.removedOrphans.isEmpty)
        #expect(f.log.recoveryReport.truncatedBytes == 0)
        let afterReopen = try Self.byLSN(f.log)
        #expect(afterReopen == beforeReopen, "the reopened log holds exactly what the compacted one did")
        #expect(Set(afterReopen.keys) == Set(f.records.map(\.lsn)))
        for record in f.records { #expect(afterReopen[record.lsn] == record, "LSN \(record.lsn)") }
        #expect(f.log.statistics.recordCount == UInt64(f.records.count))
        #expect(f.log.statistics.nextLSN >= nextLSN, "sequence numbers never go back")
        #expect(f.segmentFiles == f.namedSegmentFiles)
        let next = try f.log.append(kind: 1, key: bytes("after"), value: [])
        #expect(try f.log.read(next).lsn >= nextLSN)
        try f.log.close()
    }

    @Test("a compaction dropped mid-way leaves every record readable and no extra files, before and after reopen")
    func abandonedByDrop() throws {
        let f = try Fixture(seed: 10, batches: 150)
        let inputs = Array(f.sealed.prefix(4))
        let before = try Self.byLSN(f.log)
        let files = f.segmentFiles
        do {
            let compaction = try f.log.makeCompaction(of: inputs) { _ in true }
            var steps = 0
            // Step until at least one output file exists (sealed outputs included), but do not finish.
            while f.segmentFiles.count < files.count + 2 {
                #expect(try compaction.step(budget: 2000) == nil, "finished too early")
                steps += 1
                try #require(steps < 1000)
            }
            #expect(f.segmentFiles.count > files.count, "outputs exist before the compaction is dropped")
        }
        #expect(f.segmentFiles == files, "dropping the compaction removed its outputs")
        #expect(try Self.byLSN(f.log) == before)
        try f.reopen()
        #expect(try Self.byLSN(f.log) == before)
        #expect(f.segmentFiles == f.namedSegmentFiles)
        #expect(f.segmentFiles == files)
        try f.log.close()
    }

    @Test("a write fault during a compaction step fails it cleanly: records intact, inputs reusable, no extra files after reopen")
    func abandonedByWriteFault() throws {
        for skip in [0, 1, 2, 4] {
            let f = try Fixture(seed: 11 + UInt64(skip), batches: 150)
            let inputs = Array(f.sealed.prefix(3))
            let before = try Self.byLSN(f.log)
            let compaction = try f.log.makeCompaction(of: inputs) { _ in true }
            for _ in 0..<skip { _ = try compaction.step(budget: 1500) }
            // The fault hits the next write: let the publisher queue's roll publications finish first.
            f.log.publisher.sync {}
            f.fs.injectFault(.failWrites(count: 1))
            var failure: StorageError?
            do {
                while try compaction.step(budget: 1500) == nil {}
            } catch let error as StorageError {
                failure = error
            }
            #expect(failure?.code == .io, "skip \(skip): the step with the failed write throws .io, not \(String(describing: failure))")
            #expect(try Self.byLSN(f.log) == before, "skip \(skip): nothing changed")
            // The log still works, and the same inputs compact fine now.
            let added = try f.commitBatch()
            let (summary, _) = try Self.finish(try f.log.makeCompaction(of: inputs) { _ in true })
            #expect(summary.recordsKept == before.values.filter { inputs.contains($0.location.segment) }.count)
            f.apply(summary)
            for record in added { #expect(try f.log.read(record.location) == record) }
            try f.reopen()
            let after = try Self.byLSN(f.log)
            #expect(Set(after.keys) == Set(f.records.map(\.lsn)), "skip \(skip): every record after reopen")
            for record in f.records { #expect(after[record.lsn] == record, "skip \(skip): LSN \(record.lsn)") }
            #expect(f.segmentFiles == f.namedSegmentFiles, "skip \(skip): no extra files after reopen")
            try f.log.close()
        }
    }
}
