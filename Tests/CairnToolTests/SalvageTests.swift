import Foundation
import CairnLocalStore
import SegmentLog
import Testing

/// `cairn salvage DIR --output NEW`: a damaged cache's intact records in a new directory that opens, the
/// damaged directory unchanged.
@Suite("cairn salvage")
struct SalvageTests {
    private struct Contents: Equatable {
        var kind: UInt8
        var key: [UInt8]
        var value: [UInt8]
    }

    /// Every record of the log in `directory`, by LSN: kind, key and value (not its location).
    private func records(in directory: String) throws -> [UInt64: Contents] {
        var configuration = SegmentLog.Configuration()
        configuration.readOnly = true
        let log = try SegmentLog.open(at: directory, configuration: configuration)
        defer { try? log.close() }
        var records: [UInt64: Contents] = [:]
        try log.scan { records[$0.lsn] = Contents(kind: $0.kind, key: Array($0.key), value: Array($0.value)) }
        return records
    }

    @Test("after a flipped byte in a sealed segment, salvage keeps the intact records and the copy opens")
    func salvageFlippedByte() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = directory.path + "/cache", output = directory.path + "/salvaged"
        try SampleCache.build(at: source)
        let original = try records(in: source)
        var frames: [UInt32: [UInt64]] = [:]
        var configuration = SegmentLog.Configuration()
        configuration.readOnly = true
        let log = try SegmentLog.open(at: source, configuration: configuration)
        try log.scan(matching: RecordFilter(segment: 1)) { frames[$0.location.frameOffset, default: []].append($0.lsn) }
        try log.close()
        let offsets = frames.keys.sorted()
        try #require(offsets.count >= 3)
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: source).sorted().first { $0.hasSuffix(".seg") })
        let path = source + "/" + file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[Int(offsets[2]) - 1] ^= 0x40   // the last byte of the second frame
        try bytes.write(to: URL(fileURLWithPath: path))
        let damaged = try snapshot(of: source)

        let run = try Cairn.run(["salvage", source, "--output", output])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try snapshot(of: source) == damaged, "the damaged directory is only read")
        let salvaged = try records(in: output)
        #expect(run.stdout.contains("kept: \(salvaged.count) record(s)"), "\(run.stdout)")
        #expect(run.stdout.contains("lost: 1 damaged range(s)"), "\(run.stdout)")
        #expect(run.stdout.contains("  damage: segment 1 offset \(offsets[1])"), "\(run.stdout)")
        // Every kept record is an original one, unchanged; the damaged frame's are gone; the first frame's and
        // everything after segment 1 are kept.
        for (lsn, record) in salvaged { #expect(original[lsn] == record, "LSN \(lsn)") }
        for lsn in frames[offsets[1]]! { #expect(salvaged[lsn] == nil) }
        for lsn in frames[offsets[0]]! { #expect(salvaged[lsn] != nil) }
        let segmentOneLSNs = Set(frames.values.joined())
        for lsn in original.keys where !segmentOneLSNs.contains(lsn) { #expect(salvaged[lsn] != nil, "LSN \(lsn)") }
        // The salvaged cache replays and verifies clean.
        let store = try LocalStore.openReadOnly(at: output)
        #expect(store.documentCount > 0)
        try store.close()
        let verify = try Cairn.run(["verify", output])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("salvage refuses an existing output, an output inside the source, a locked source, and one without a log")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = directory.path + "/cache", output = directory.path + "/salvaged"
        try SampleCache.build(at: source)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        let exists = try Cairn.run(["salvage", source, "--output", output])
        #expect(exists.status == 2)
        #expect(exists.stderr.contains("exists"), "\(exists.stderr)")
        try FileManager.default.removeItem(atPath: output)

        let before = try snapshot(of: source)
        let inside = try Cairn.run(["salvage", source, "--output", source + "/salvaged"])
        #expect(inside.status == 2)
        #expect(inside.stderr.contains("inside"), "\(inside.stderr)")
        #expect(try snapshot(of: source) == before)

        let store = try LocalStore.open(at: source, configuration: SampleCache.configuration)
        let locked = try Cairn.run(["salvage", source, "--output", output])
        try store.close()
        #expect(locked.status == 2)
        #expect(locked.stderr.contains("in use"), "\(locked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output), "nothing is written when refused")

        let empty = directory.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let notACache = try Cairn.run(["salvage", empty, "--output", output])
        #expect(notACache.status == 2)
        #expect(notACache.stderr.contains("nothing to salvage"), "\(notACache.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output), "a failed salvage leaves no output behind")
    }

    @Test("salvage --help explains the command with an example")
    func help() throws {
        let run = try Cairn.run(["salvage", "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("--output"))
        #expect(run.stdout.contains("cairn salvage cache --output cache-salvaged"), "\(run.stdout)")
    }
}
