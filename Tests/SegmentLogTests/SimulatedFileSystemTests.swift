import Foundation
import Testing

@testable import CairnTestSupport
@testable import SegmentLog

@Suite("SimulatedFileSystem")
struct SimulatedFileSystemTests {
    // MARK: POSIX semantics

    @Test("reads, writes past the end, and truncation behave like POSIX")
    func readWriteExtendTruncate() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let file = try fs.open("/db/a", .createNew)
        try file.write(Array("hello".utf8), at: 0)
        try file.write([7, 8], at: 10)
        #expect(try file.size() == 12)
        #expect(try file.readAll() == Array("hello".utf8) + [0, 0, 0, 0, 0, 7, 8])
        #expect(try file.read(at: 11, count: 5) == [8])
        #expect(try file.read(at: 50, count: 5) == [])
        try file.write([9], at: 1)
        #expect(try file.read(at: 0, count: 3) == [104, 9, 108])
        try file.truncate(to: 3)
        #expect(try file.readAll() == [104, 9, 108])
        try file.truncate(to: 5)
        #expect(try file.readAll() == [104, 9, 108, 0, 0])
        try file.write([], at: 100)
        #expect(try file.size() == 5, "an empty write does not extend the file")
        #expect(fs.bytes(of: "/db/a") == [104, 9, 108, 0, 0])
    }

    @Test("createNew on an existing path fails with io; opening a missing file fails with notFound")
    func openModes() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db/")
        _ = try fs.open("/db/a", .createNew)
        let existing = #expect(throws: StorageError.self) { try fs.open("/db/a", .createNew) }
        #expect(existing?.code == .io)
        #expect(existing?.errno == EEXIST)
        for mode in [FileOpenMode.readOnly, .readWrite] {
            let missing = #expect(throws: StorageError.self) { try fs.open("/db/missing", mode) }
            #expect(missing?.code == .notFound)
        }
        let noDirectory = #expect(throws: StorageError.self) { try fs.open("/nodir/a", .createNew) }
        #expect(noDirectory?.code == .notFound)
        #expect(try fs.open("/db//a", .readOnly).size() == 0, "paths are normalised")
    }

    @Test("a read-only handle rejects writes and truncation")
    func readOnlyRejectsWrites() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1, 2, 3], of: "/db/a")
        let file = try fs.open("/db/a", .readOnly)
        #expect(throws: StorageError.self) { try file.write([9], at: 0) }
        #expect(throws: StorageError.self) { try file.truncate(to: 0) }
        #expect(try file.readAll() == [1, 2, 3])
        #expect(fs.bytes(of: "/db/a") == [1, 2, 3])
    }

    @Test("a closed handle rejects everything")
    func closedHandleRejectsEverything() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1, 2, 3], of: "/db/a")
        let file = try fs.open("/db/a", .readWrite)
        try file.close()
        #expect(throws: StorageError.self) { try file.read(at: 0, count: 1) }
        #expect(throws: StorageError.self) { try file.write([9], at: 0) }
        #expect(throws: StorageError.self) { try file.size() }
        #expect(throws: StorageError.self) { try file.truncate(to: 0) }
        #expect(throws: StorageError.self) { try file.sync() }
        #expect(throws: StorageError.self) { try file.close() }
        #expect(fs.bytes(of: "/db/a") == [1, 2, 3])
    }

    @Test("rename replaces the target; a removed file stays usable through an open handle")
    func renameAndRemove() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db/sub")
        let a = try fs.open("/db/a", .createNew)
        try a.write([1], at: 0)
        let b = try fs.open("/db/b", .createNew)
        try b.write([2], at: 0)
        try fs.rename("/db/a", to: "/db/b")
        #expect(try fs.contentsOfDirectory(at: "/db").sorted() == ["b", "sub"])
        #expect(fs.fileNames(in: "/db/") == ["b"])
        #expect(fs.bytes(of: "/db/b") == [1])
        #expect(try b.readAll() == [2], "the replaced file lives on through its handle")
        try fs.removeFile(at: "/db/b")
        #expect(try fs.exists("/db/b") == false)
        try a.write([3], at: 1)
        #expect(try a.readAll() == [1, 3])
        #expect(throws: StorageError.self) { try fs.removeFile(at: "/db/b") }
        #expect(throws: StorageError.self) { try fs.rename("/db/b", to: "/db/c") }
        #expect(try fs.exists("/db/sub") && fs.exists("/"))
    }

    @Test("a file no name and no handle refers to is forgotten")
    func unreachableFilesAreForgotten() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let inodes = { fs.state.withLock { $0.inodes.count } }
        let file = try fs.open("/db/a", .createNew)
        try file.write([1, 2, 3], at: 0)
        try fs.syncDirectory(at: "/db")
        try fs.removeFile(at: "/db/a")
        #expect(inodes() == 1, "still open, and still durably named")
        try file.close()
        #expect(inodes() == 1, "still durably named")
        try fs.syncDirectory(at: "/db")
        #expect(inodes() == 0)
    }

    @Test("concurrent writers on separate files all land")
    func concurrentWriters() async throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let file = try fs.open("/db/\(writer)", .createNew)
                    for index in 0..<200 {
                        try file.write([UInt8(writer), UInt8(index)], at: UInt64(index * 2))
                    }
                    try file.sync()
                    try file.close()
                }
            }
            try await group.waitForAll()
        }
        #expect(fs.operationCount == 1 + 8 * (1 + 200 + 1))
        for writer in 0..<8 {
            #expect(fs.bytes(of: "/db/\(writer)") == (0..<200).flatMap { [UInt8(writer), UInt8($0)] })
        }
    }

    // MARK: Crash images

    @Test("dropUnsyncedData loses what was not synced; keepUnsyncedData keeps it")
    func unsyncedData() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let file = try fs.open("/db/log", .createNew)
        try fs.syncDirectory(at: "/db")
        try file.write([1, 2, 3], at: 0)
        try file.sync()
        try file.write([4, 5], at: 3)
        try file.truncate(to: 4)
        #expect(fs.crashImage(.dropUnsyncedData, seed: 1).bytes(of: "/db/log") == [1, 2, 3])
        #expect(fs.crashImage(.keepUnsyncedData, seed: 1).bytes(of: "/db/log") == [1, 2, 3, 4])
        #expect(fs.bytes(of: "/db/log") == [1, 2, 3, 4], "taking an image changes nothing")
    }

    @Test("a durable name whose data was never synced survives empty")
    func durableNameWithoutData() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let file = try fs.open("/db/log", .createNew)
        try file.write([1, 2, 3], at: 0)
        try fs.syncDirectory(at: "/db")
        #expect(fs.crashImage(.dropUnsyncedData, seed: 1).bytes(of: "/db/log") == [])
    }

    @Test("a created file whose directory was not synced vanishes in a crash image")
    func createdFileWithoutDirectorySyncVanishes() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let file = try fs.open("/db/log", .createNew)
        try file.write([1, 2, 3], at: 0)
        try file.sync()
        for model in CrashModel.allCases {
            let image = fs.crashImage(model, seed: 7)
            #expect(try image.exists("/db/log") == false, "\(model)")
            #expect(try image.exists("/db"), "directories are durable at once")
        }
        let kept = fs.crashImage(.dropUnsyncedData, seed: 7, keepingUnsyncedDirectoryChanges: true)
        #expect(kept.bytes(of: "/db/log") == [1, 2, 3])
        try fs.syncDirectory(at: "/db")
        #expect(fs.crashImage(.dropUnsyncedData, seed: 7).bytes(of: "/db/log") == [1, 2, 3])
    }

    @Test("rename and remove without a directory sync revert in a crash image")
    func renameWithoutDirectorySyncReverts() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1], of: "/db/tmp")
        fs.setBytes([2], of: "/db/current")
        fs.setBytes([3], of: "/db/old")
        try fs.rename("/db/tmp", to: "/db/current")
        try fs.removeFile(at: "/db/old")
        let reverted = fs.crashImage(.keepUnsyncedData, seed: 0)
        #expect(reverted.fileNames(in: "/db") == ["current", "old", "tmp"])
        #expect(reverted.bytes(of: "/db/current") == [2])
        try fs.syncDirectory(at: "/db")
        let synced = fs.crashImage(.dropUnsyncedData, seed: 0)
        #expect(synced.fileNames(in: "/db") == ["current"])
        #expect(synced.bytes(of: "/db/current") == [1])
    }

    @Test("a crash image is independent, unlocked and uncrashed")
    func crashImageIsIndependent() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1], of: "/db/a")
        let held = try fs.lock("/db/LOCK", owner: "writer")
        fs.crashAtOperation = 1
        #expect(throws: StorageError.self) { try fs.removeFile(at: "/db/a") }
        #expect(fs.isCrashed)
        let image = fs.crashImage(.keepUnsyncedData, seed: 3)
        #expect(!image.isCrashed && image.operationCount == 0 && image.crashAtOperation == nil)
        let lock = try image.lock("/db/LOCK", owner: "recovery")
        lock.release()
        try image.open("/db/a", .readWrite).write([9], at: 0)
        #expect(image.bytes(of: "/db/a") == [9])
        #expect(fs.bytes(of: "/db/a") == [1])
        held.release()
    }

    // MARK: Operation counting and crashes

    /// Nine counted operations interleaved with uncounted ones; `done` counts the counted ones that returned.
    private func countedWorkload(_ fs: SimulatedFileSystem, done: inout Int) throws {
        try fs.createDirectory(at: "/db"); done += 1
        let file = try fs.open("/db/log", .createNew); done += 1
        try file.write([1, 2, 3], at: 0); done += 1
        try file.sync(); done += 1
        try fs.syncDirectory(at: "/db"); done += 1
        _ = try file.read(at: 0, count: 3)
        _ = try file.size()
        _ = try fs.exists("/db/log")
        _ = try fs.contentsOfDirectory(at: "/db")
        let reader = try fs.open("/db/log", .readOnly)
        try reader.close()
        try fs.lock("/db/LOCK", owner: "test").release()
        try file.truncate(to: 2); done += 1
        let temporary = try fs.open("/db/tmp", .createNew); done += 1
        try temporary.close()
        try fs.rename("/db/tmp", to: "/db/new"); done += 1
        try fs.removeFile(at: "/db/new"); done += 1
    }

    @Test("operationCount counts exactly the mutating and durability operations")
    func operationCountCountsDocumentedOperations() throws {
        let fs = SimulatedFileSystem()
        var done = 0
        try countedWorkload(fs, done: &done)
        #expect(done == 9)
        #expect(fs.operationCount == 9)
        #expect(!fs.isCrashed)
        #expect(throws: StorageError.self) { try fs.removeFile(at: "/db/missing") }
        #expect(fs.operationCount == 10, "a failing attempt counts too")
    }

    @Test("crashAtOperation makes operation N and everything after it throw", arguments: 1...9)
    func crashAtOperation(_ n: Int) throws {
        let fs = SimulatedFileSystem(seed: UInt64(n))
        fs.crashAtOperation = n
        var done = 0
        let error = #expect(throws: StorageError.self) { try countedWorkload(fs, done: &done) }
        #expect(error?.code == .io)
        #expect(error?.message.contains("simulated crash") == true)
        #expect(done == n - 1)
        #expect(fs.operationCount == n)
        #expect(fs.isCrashed)
        #expect(throws: StorageError.self) { try fs.exists("/") }
        #expect(throws: StorageError.self) { try fs.contentsOfDirectory(at: "/") }
        #expect(throws: StorageError.self) { try fs.createDirectory(at: "/other") }
        #expect(throws: StorageError.self) { try fs.lock("/LOCK", owner: "x") }
        #expect(fs.operationCount == n, "nothing counts after the crash")
    }

    @Test("after a crash, open handles reject reads too")
    func crashStopsHandles() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1, 2, 3], of: "/db/a")
        let file = try fs.open("/db/a", .readWrite)
        fs.crashAtOperation = fs.operationCount + 1
        #expect(throws: StorageError.self) { try file.sync() }
        #expect(throws: StorageError.self) { try file.read(at: 0, count: 1) }
        #expect(throws: StorageError.self) { try file.size() }
        #expect(throws: StorageError.self) { try file.close() }
        #expect(throws: StorageError.self) { try fs.open("/db/a", .readOnly) }
    }

    @Test("the crashing write applies at most a strict prefix of its bytes")
    func crashingWriteIsTorn() throws {
        let data = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
        var lengths = Set<Int>()
        for seed in 0..<20 as Range<UInt64> {
            let fs = SimulatedFileSystem(seed: seed)
            fs.setBytes([], of: "/db/a")
            let file = try fs.open("/db/a", .readWrite)
            fs.crashAtOperation = fs.operationCount + 1
            #expect(throws: StorageError.self) { try file.write(data, at: 0) }
            let torn = try #require(fs.bytes(of: "/db/a"))
            #expect(torn.count < data.count && data.starts(with: torn))
            #expect(fs.crashImage(.keepUnsyncedData, seed: 0).bytes(of: "/db/a") == torn)
            lengths.insert(torn.count)
        }
        #expect(lengths.count > 1, "the torn length depends on the seed")
    }

    // MARK: Injected faults

    @Test("a failed sync does not make the data durable")
    func failedSyncIsNotDurable() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([], of: "/db/a")
        let file = try fs.open("/db/a", .readWrite)
        try file.write([1, 2], at: 0)
        fs.injectFault(.failSyncs(count: 1))
        let error = #expect(throws: StorageError.self) { try file.sync() }
        #expect(error?.code == .io)
        #expect(error?.errno == EIO)
        #expect(fs.crashImage(.dropUnsyncedData, seed: 0).bytes(of: "/db/a") == [])
        try file.sync()
        #expect(fs.crashImage(.dropUnsyncedData, seed: 0).bytes(of: "/db/a") == [1, 2])
    }

    @Test("failing writes write nothing and fail with ENOSPC, then writes work again")
    func failingWritesWriteNothing() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([], of: "/db/a")
        let file = try fs.open("/db/a", .readWrite)
        fs.injectFault(.failWrites(count: 2))
        for _ in 0..<2 {
            let error = #expect(throws: StorageError.self) { try file.write([1, 2, 3], at: 0) }
            #expect(error?.errno == ENOSPC)
        }
        #expect(fs.bytes(of: "/db/a") == [])
        try file.write([4], at: 0)
        #expect(fs.bytes(of: "/db/a") == [4])
    }

    @Test("a short write writes only a prefix and throws")
    func shortWriteWritesPrefix() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([9, 9, 9, 9, 9, 9], of: "/db/a")
        let file = try fs.open("/db/a", .readWrite)
        fs.injectFault(.shortWrite(keeping: 2))
        let error = #expect(throws: StorageError.self) { try file.write([1, 2, 3, 4], at: 1) }
        #expect(error?.code == .io)
        #expect(fs.bytes(of: "/db/a") == [9, 1, 2, 9, 9, 9])
        try file.write([5], at: 0)
        #expect(fs.bytes(of: "/db/a") == [5, 1, 2, 9, 9, 9], "only the next write is short")
    }

    @Test("a persistent fault fails every call of its kind until clearFaults")
    func persistentFault() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1], of: "/db/a")
        fs.injectFault(.failAlways(.syncDirectory))
        fs.injectFault(.failAlways(.read))
        let file = try fs.open("/db/a", .readWrite)
        for _ in 0..<3 {
            #expect(throws: StorageError.self) { try fs.syncDirectory(at: "/db") }
            #expect(throws: StorageError.self) { try file.read(at: 0, count: 1) }
        }
        try file.sync()
        fs.clearFaults()
        try fs.syncDirectory(at: "/db")
        #expect(try file.read(at: 0, count: 1) == [1])
    }

    @Test("an injected close failure still closes the handle")
    func failedCloseStillCloses() throws {
        let fs = SimulatedFileSystem()
        fs.setBytes([1], of: "/db/a")
        let file = try fs.open("/db/a", .readWrite)
        fs.injectFault(.failAlways(.close))
        #expect(throws: StorageError.self) { try file.close() }
        fs.clearFaults()
        #expect(throws: StorageError.self) { try file.read(at: 0, count: 1) }
    }

    // MARK: Locks

    @Test("a second lock on a held path fails naming the holder; release frees it")
    func locksConflictAndRelease() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let first = try fs.lock("/db/LOCK", owner: "pid 42")
        let error = #expect(throws: StorageError.self) { try fs.lock("/db/LOCK", owner: "pid 43") }
        #expect(error?.code == .locked)
        #expect(error?.message.contains("pid 42") == true)
        #expect(try fs.contentsOfDirectory(at: "/db") == ["LOCK"])
        #expect(fs.bytes(of: "/db/LOCK") == Array("pid 42".utf8))
        first.release()
        let second = try fs.lock("/db/LOCK", owner: "pid 43")
        first.release()  // a stale release must not free someone else's lock
        #expect(throws: StorageError.self) { try fs.lock("/db/LOCK", owner: "pid 44") }
        second.release()
    }

    // MARK: Random crash models

    private static let pagedPath = "/db/log"

    /// A synced 3000-byte file with twelve unsynced appends of assorted lengths.
    private func appendOnlyFileSystem() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/db")
        let file = try fs.open(Self.pagedPath, .createNew)
        try fs.syncDirectory(at: "/db")
        var end: UInt64 = 0
        for (index, length) in [3000, 17, 4096, 1, 5000, 300, 8192, 12, 700, 4095, 2, 6000, 33].enumerated() {
            try file.write((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index + 1) }, at: end)
            end += UInt64(length)
            if index == 0 { try file.sync() }
        }
        return fs
    }

    @Test("randomPrefix is deterministic per seed and lies between the durable and the current file")
    func randomPrefixIsBetweenDurableAndCurrent() throws {
        let fs = try appendOnlyFileSystem()
        let durable = try #require(fs.crashImage(.dropUnsyncedData, seed: 0).bytes(of: Self.pagedPath))
        let current = try #require(fs.bytes(of: Self.pagedPath))
        #expect(durable.count == 3000 && current.count > 30_000)
        var lengths = Set<Int>()
        for seed in 0..<400 as Range<UInt64> {
            let image = try #require(fs.crashImage(.randomPrefix, seed: seed).bytes(of: Self.pagedPath))
            #expect(fs.crashImage(.randomPrefix, seed: seed).bytes(of: Self.pagedPath) == image)
            if !(image.starts(with: durable) && current.starts(with: image)) {
                Issue.record("seed \(seed): \(image.count) bytes are not between durable and current")
            }
            lengths.insert(image.count)
        }
        #expect(lengths.contains(durable.count) && lengths.contains(current.count))
        #expect(lengths.count > 20, "prefixes of many lengths, torn writes included")
    }

    @Test("randomPages is deterministic per seed, keeps or drops whole pieces, and can reorder them")
    func randomPagesIsBetweenDurableAndCurrent() throws {
        let fs = SimulatedFileSystem()
        let old = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        fs.setBytes(old, of: Self.pagedPath)
        let file = try fs.open(Self.pagedPath, .readWrite)
        let overwrite = (5_000..<13_000).map { ~old[$0] }  // pieces [5000, 8192) [8192, 12288) [12288, 13000)
        try file.write(overwrite, at: 5_000)
        let append = (0..<9_000).map { UInt8(truncatingIfNeeded: $0 % 200 + 1) }  // 20480, 24576, 28672 cuts
        try file.write(append, at: 20_000)
        let current = try #require(fs.bytes(of: Self.pagedPath))
        let pieces = [5_000, 8_192, 12_288, 13_000, 20_000, 20_480, 24_576, 28_672, 29_000]
        var images = Set<[UInt8]>()
        var outcomes = Set<[Bool]>()
        var reordered = false
        for seed in 0..<300 as Range<UInt64> {
            let image = try #require(fs.crashImage(.randomPages, seed: seed).bytes(of: Self.pagedPath))
            #expect(fs.crashImage(.randomPages, seed: seed).bytes(of: Self.pagedPath) == image)
            #expect(image.count >= old.count && image.count <= current.count)
            var kept: [Bool] = []
            for (start, end) in zip(pieces, pieces.dropFirst()) where start != 13_000 {
                let piece = start < image.count ? Array(image[start..<min(end, image.count)]) : []
                let new = Array(current[start..<end])
                let before = start < old.count ? Array(old[start..<end]) : Array(repeating: 0, count: end - start)
                if piece == new {
                    kept.append(true)
                } else if piece == before || (start >= old.count && before.starts(with: piece)) {
                    kept.append(false)
                } else {
                    Issue.record("seed \(seed): piece \(start)..<\(end) is neither old nor new")
                }
            }
            if let firstDropped = kept.firstIndex(of: false), kept[firstDropped...].contains(true) {
                reordered = true
            }
            images.insert(image)
            if kept.count == 7 { outcomes.insert(kept) }
        }
        for piece in 0..<7 {
            #expect(outcomes.contains { $0[piece] } && outcomes.contains { !$0[piece] }, "piece \(piece) kept and lost")
        }
        #expect(images.count > 20)
        #expect(reordered, "a later piece survives while an earlier one is lost")
    }

    // MARK: Cross-check with the real file system

    /// Runs one scripted sequence and records every result or error, without the root path.
    private func transcript(_ fs: any FileSystem, root: String) -> [String] {
        var log: [String] = []
        func step(_ label: String, _ body: () throws -> String) {
            do {
                log.append("\(label): \(try body())")
            } catch let error as StorageError {
                let holder = error.code == .locked ? " names holder: \(error.message.contains("owner-1"))" : ""
                log.append("\(label): \(error.code) errno \(error.errno.map { "\($0)" } ?? "-")\(holder)")
            } catch {
                log.append("\(label): unexpected \(error)")
            }
        }
        let db = root + "/db"
        var writer: (any StorageFile)?
        var reader: (any StorageFile)?
        step("mkdir") { try fs.createDirectory(at: db + "/sub"); return "ok" }
        step("mkdir again") { try fs.createDirectory(at: db); return "ok" }
        step("exists db") { "\(try fs.exists(db))" }
        step("exists missing") { "\(try fs.exists(db + "/missing"))" }
        step("create a") { writer = try fs.open(db + "/a", .createNew); return "ok" }
        guard let writer else { return log }
        step("write") { try writer.write(Array("hello".utf8), at: 0); return "ok" }
        step("write past end") { try writer.write([7, 8], at: 10); return "ok" }
        step("size") { "\(try writer.size())" }
        step("read all") { "\(try writer.readAll())" }
        step("read at end") { "\(try writer.read(at: 11, count: 5))" }
        step("read past end") { "\(try writer.read(at: 50, count: 5))" }
        step("shrink") { try writer.truncate(to: 3); return "\(try writer.readAll())" }
        step("grow") { try writer.truncate(to: 6); return "\(try writer.readAll())" }
        step("sync") { try writer.sync(); return "ok" }
        step("create existing") { _ = try fs.open(db + "/a", .createNew); return "ok" }
        step("create over directory") { _ = try fs.open(db + "/sub", .createNew); return "ok" }
        step("open directory read-write") { _ = try fs.open(db + "/sub", .readWrite); return "ok" }
        step("open missing read-only") { _ = try fs.open(db + "/missing", .readOnly); return "ok" }
        step("open missing read-write") { _ = try fs.open(db + "/missing", .readWrite); return "ok" }
        step("create in missing directory") { _ = try fs.open(root + "/nodir/x", .createNew); return "ok" }
        step("open read-only") { reader = try fs.open(db + "/a", .readOnly); return "ok" }
        guard let reader else { return log }
        step("read-only write") { try reader.write([1], at: 0); return "ok" }
        step("read-only truncate") { try reader.truncate(to: 0); return "ok" }
        step("read-only read") { "\(try reader.readAll())" }
        step("create b") {
            let b = try fs.open(db + "/b", .createNew)
            try b.write(Array("bee".utf8), at: 0)
            try b.close()
            return "ok"
        }
        step("rename over b") { try fs.rename(db + "/a", to: db + "/b"); return "ok" }
        step("list") { "\(try fs.contentsOfDirectory(at: db).sorted())" }
        step("list with slash") { "\(try fs.contentsOfDirectory(at: db + "/").sorted())" }
        step("read b") {
            let b = try fs.open(db + "/b", .readOnly)
            defer { try? b.close() }
            return "\(try b.readAll())"
        }
        step("remove b") { try fs.removeFile(at: db + "/b"); return "ok" }
        step("exists b") { "\(try fs.exists(db + "/b"))" }
        step("write removed") { try writer.write([1], at: 0); return "\(try reader.readAll())" }
        step("remove missing") { try fs.removeFile(at: db + "/b"); return "ok" }
        step("remove directory") { try fs.removeFile(at: db + "/sub"); return "ok" }
        step("rename missing") { try fs.rename(db + "/b", to: db + "/c"); return "ok" }
        step("list missing") { "\(try fs.contentsOfDirectory(at: db + "/missing"))" }
        step("sync directory") { try fs.syncDirectory(at: db); return "ok" }
        step("sync missing directory") { try fs.syncDirectory(at: db + "/missing"); return "ok" }
        step("lock") {
            let first = try fs.lock(db + "/LOCK", owner: "owner-1")
            defer { first.release() }
            step("lock held") { _ = try fs.lock(db + "/LOCK", owner: "owner-2"); return "ok" }
            return "\(try fs.contentsOfDirectory(at: db).sorted())"
        }
        step("relock") { try fs.lock(db + "/LOCK", owner: "owner-2").release(); return "ok" }
        step("close") { try writer.close(); try reader.close(); return "ok" }
        return log
    }

    @Test("the same operations give the same results as on PosixFileSystem")
    func matchesPosixFileSystem() throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-simfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let posix = PosixFileSystem()
        try posix.createDirectory(at: root)
        let simulated = SimulatedFileSystem()
        try simulated.createDirectory(at: "/tmp/check")
        let expected = transcript(posix, root: root)
        let actual = transcript(simulated, root: "/tmp/check")
        #expect(expected.count == actual.count)
        for (real, simulation) in zip(expected, actual) {
            #expect(real == simulation)
        }
    }
}
