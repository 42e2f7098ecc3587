import CairnModel
import Foundation
import CairnLocalStore
import SegmentLog
import Testing

/// Exit statuses and error messages of the built `cairn`, run as a subprocess: 0 success, 1 damage, 2 usage,
/// not a cache, locked.
@Suite("cairn exit statuses and errors")
struct ExitCodeTests {
    static let readCommands: [[String]] = [["inspect"], ["dump"], ["dump", "--json"], ["verify"], ["stats"], ["outbox"]]

    @Test("verify exits 0 on a clean cache")
    func verifyClean() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let run = try Cairn.run(["verify", directory.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasSuffix("clean\n"))
    }

    @Test("verify exits 1 after a flipped byte and names the segment, the frame's offset and what it held")
    func verifyFlippedByte() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        // The records of segment 1 by frame, from the intact log.
        var frames: [UInt32: [UInt64]] = [:]
        var configuration = SegmentLog.Configuration()
        configuration.readOnly = true
        let log = try SegmentLog.open(at: directory.path, configuration: configuration)
        try log.scan(matching: RecordFilter(segment: 1)) { frames[$0.location.frameOffset, default: []].append($0.lsn) }
        try log.close()
        let offsets = frames.keys.sorted()
        try #require(offsets.count >= 3)
        // Flip the last byte of the second frame (the byte before the third frame).
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().first { $0.hasSuffix(".seg") })
        let path = directory.path + "/" + file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[Int(offsets[2]) - 1] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: path))

        let run = try Cairn.run(["verify", directory.path])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let lsns = frames[offsets[1]]!
        let damage = run.stdout.split(separator: "\n").filter { $0.hasPrefix("damage: ") }
        #expect(damage.count == 1, "\(run.stdout)")
        #expect(damage.first?.hasPrefix("damage: segment 1 (\(file)) offset \(offsets[1]),") == true, "\(run.stdout)")
        #expect(damage.first?.contains("the frame held \(lsns.count) record(s), LSN \(lsns.min()!)...\(lsns.max()!)") == true,
                "\(run.stdout)")
        #expect(damage.first?.contains("last intact record before it: LSN \(frames[offsets[0]]!.max()!) ") == true, "\(run.stdout)")
        #expect(run.stderr.contains("corruption"))
        // Reading past the damage is corruption (1) too; dump prints what comes before it.
        let dump = try Cairn.run(["dump", directory.path])
        #expect(dump.status == 1)
        #expect(dump.stdout.split(separator: "\n").count == frames[offsets[0]]!.count)
    }

    @Test("verify exits 1 on damage in the middle of the active segment followed by acknowledged commits")
    func verifyActiveSegmentDamage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // Twenty pending writes, each a durable commit (the client cache's .full durability).
        var configuration = LocalStore.defaultLogConfiguration
        configuration.preallocationSize = 0
        let store = try LocalStore.open(at: directory.path, configuration: configuration)
        for i in 0..<20 {
            try store.writeLocally(
                [.set(SampleCache.key("notes/n\(i)"), value: ObjectValue(["text": .string("note \(i)")]))],
                localWriteTime: SampleCache.time(Int64(i)))
        }
        try store.close()
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().last { $0.hasSuffix(".seg") })
        let path = directory.path + "/" + file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let target = bytes.count / 3
        bytes[target] ^= 0x08
        try bytes.write(to: URL(fileURLWithPath: path))

        let run = try Cairn.run(["verify", directory.path])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let damage = run.stdout.split(separator: "\n").filter { $0.hasPrefix("damage: ") }
        #expect(damage.count == 1, "\(run.stdout)")
        #expect(damage.first?.contains("(\(file))") == true, "\(run.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "verify changed nothing")
        let inspect = try Cairn.run(["inspect", directory.path])
        #expect(inspect.stdout.contains("damage in the active segment, with durable commits after it"), "\(inspect.stdout)")
        // An app's open refuses it as corruption instead of cutting the nineteen intact writes.
        #expect {
            try LocalStore.open(at: directory.path, configuration: configuration)
        } throws: { ($0 as? LocalStoreError)?.storage?.code == .corruption }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the failed open cut nothing")
    }

    @Test("verify exits 1 when intact frames hold an event that does not decode, naming it")
    func verifyBadEvent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let log = try SegmentLog.open(at: directory.path)
        var batch = WriteBatch()
        batch.append(kind: 1, key: Array("users/zz".utf8), value: [1, 9, 9])
        let location = try #require(try log.commit(batch).first)
        let lsn = log.nextLSN - 1
        try log.close()
        let run = try Cairn.run(["verify", directory.path])
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.stdout.contains("problem: LSN \(lsn) at \(location), remoteDocumentChanged users/zz: cannot decode"), "\(run.stdout)")
        #expect(run.stdout.contains("problem: replay fails"), "\(run.stdout)")
        #expect(!run.stdout.contains("damage:"))
    }

    @Test("usage errors exit 2 with the usage on stderr")
    func usage() throws {
        for arguments in [["verify"], ["dump", "/tmp", "--type", "nonsense"], ["gc", "/tmp"], ["inspect", "/tmp", "--threshold", "-5"],
                          ["compact", "/tmp", "--min-dead-ratio", "2"], ["no-such-command"]] {
            let run = try Cairn.run(arguments)
            #expect(run.status == 2, "cairn \(arguments.joined(separator: " ")): \(run.stderr)")
            #expect(run.stderr.contains("Usage:") || run.stderr.contains("USAGE:"), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("--help of every command has an abstract, an example and argument help")
    func help() throws {
        for command in ["inspect", "dump", "verify", "stats", "outbox", "compact", "gc"] {
            let run = try Cairn.run([command, "--help"])
            #expect(run.status == 0)
            #expect(run.stdout.contains("OVERVIEW:") && run.stdout.contains("Example"), "\(command): \(run.stdout)")
            #expect(run.stdout.contains("The cache directory."), "\(command)")
        }
    }

    @Test("a directory that is not a cache is a clear error with exit 2, for every command")
    func notACache() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let empty = directory.path + "/empty", other = directory.path + "/other", missing = directory.path + "/missing"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: other + "/notes.txt"))
        for place in [empty, other, missing] {
            for command in Self.readCommands + [["compact"], ["gc", "--threshold", "0"]] {
                let run = try Cairn.run([command[0], place] + command.dropFirst())
                #expect(run.status == 2, "cairn \(command[0]) \(place): \(run.stderr)")
                #expect(run.stderr.contains("is not a Cairn cache"), "\(run.stderr)")
            }
        }
        // Nothing was created on the way.
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("a log of other records is not a cache for the reports, but dump shows its records")
    func foreignLog() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let log = try SegmentLog.open(at: directory.path)
        var batch = WriteBatch()
        batch.append(kind: 200, key: Array("k".utf8), value: Array("v".utf8))
        try log.commit(batch)
        try log.close()
        let inspect = try Cairn.run(["inspect", directory.path])
        #expect(inspect.status == 2)
        #expect(inspect.stderr.contains("not Cairn cache events"), "\(inspect.stderr)")
        let dump = try Cairn.run(["dump", directory.path])
        #expect(dump.status == 0)
        #expect(dump.stdout.contains("unknown kind 200, 1 bytes"), "\(dump.stdout)")
    }

    @Test("a cache a running app holds is refused with exit 2, by every command")
    func locked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let app = try LocalStore.open(at: directory.path)
        defer { try? app.close() }
        for command in Self.readCommands + [["compact"], ["compact", "--dry-run"], ["gc", "--threshold", "0"], ["gc", "--threshold", "0", "--dry-run"]] {
            let run = try Cairn.run([command[0], directory.path] + command.dropFirst())
            #expect(run.status == 2, "cairn \(command.joined(separator: " ")): \(run.stdout)")
            #expect(run.stderr.contains("in use by pid \(getpid())"), "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(command): \(run.stdout)")
        }
    }
}
