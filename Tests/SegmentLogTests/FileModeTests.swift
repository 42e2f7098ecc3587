import CairnTestSupport
import Foundation
import Testing
@testable import SegmentLog

/// A log is private to its user: every directory it creates is 0700 and every file (segments, MANIFEST and
/// its temporary, LOCK) 0600, through writes, segment rolls and compaction, whatever the umask. The modes are
/// checked with the usual umask 022 (which would leave 0755/0644 if the engine asked for them) and, in a
/// child process, with umask 0 (which would leave anything the engine asks for).
@Suite("File modes", .serialized)
struct FileModeTests {
    @Test("A log's directories are created 0700 and its files 0600, through rolls and compaction (umask 022)")
    func privateThroughRollsAndCompaction() throws {
        let root = TemporaryDirectory("modes")
        let directory = root.path + "/nested/db"
        try withUmask(0o022) {
            var configuration = SegmentLog.Configuration()
            configuration.frameTargetSize = 1024
            configuration.segmentTargetSize = 8192
            configuration.preallocationSize = 2048
            let log = try SegmentLog.open(at: directory, configuration: configuration)
            var random = SeededRandom(seed: 7)
            for round in 0..<200 {
                var batch = WriteBatch()
                batch.append(kind: 1, key: bytes("doc/\(round % 5)"), value: documentValue(round, size: 600, using: &random))
                _ = try log.commit(batch)
            }
            _ = try log.sealActiveSegment()
            let sealed = log.statistics.segments.filter { !$0.isActive }.map(\.id)
            #expect(sealed.count > 2, "the writes rolled segments")
            let compaction = try log.makeCompaction(of: sealed) { _ in true }
            while try compaction.step() == nil {}
            // The inputs are deleted on the publisher queue: list the directory once that is done.
            log.publisher.sync {}
            let modes = try FileModes(under: root.path)
            #expect(modes.files.contains { $0.path.hasSuffix("/LOCK") })
            #expect(modes.files.contains { $0.path.hasSuffix("/MANIFEST") })
            #expect(modes.files.filter { $0.path.hasSuffix(".seg") }.count >= 2)
            #expect(modes.notPrivate.isEmpty, "not private: \(modes.notPrivate)")
            try log.close()
        }
    }

    @Test("A writer process with umask 0 still creates its directories 0700 and files 0600")
    func privateUnderUmaskZero() throws {
        let writer = try #require(ProcessKillTests.writerPath, "build the cairn executable first (swift build builds it)")
        let root = TemporaryDirectory("modes-umask0")
        let directory = root.path + "/a/b/db"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "umask 000 && exec \"$0\" crash-writer \"$1\" --batches 40", writer, directory]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let modes = try FileModes(under: root.path)
        #expect(modes.directories.count == 4, "root, a, b, db: \(modes.directories)")
        #expect(modes.files.contains { $0.path.hasSuffix(".seg") })
        #expect(modes.notPrivate.isEmpty, "not private: \(modes.notPrivate)")
    }
}
