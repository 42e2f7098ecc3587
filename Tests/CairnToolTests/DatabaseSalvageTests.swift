import CairnDatabaseCore
import Foundation
import SegmentLog
import Testing

/// `cairn salvage` on a Realtime Database cache: the salvaged copy is replayed as a Realtime Database cache (not
/// as a Firestore one, which it can never be), so it opens, verifies clean and keeps its pending writes.
@Suite("cairn salvage on Realtime Database caches")
struct DatabaseSalvageTests {
    @Test("a flipped byte in a middle frame: salvage names the kind, drops that frame, keeps the pending writes, the copy verifies")
    func salvageDatabaseCache() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = directory.path + "/cache", output = directory.path + "/salvaged"
        try SampleDatabaseCache.build(at: source)
        var configuration = SegmentLog.Configuration()
        configuration.readOnly = true
        var frames: [UInt32: [UInt8]] = [:]
        let log = try SegmentLog.open(at: source, configuration: configuration)
        try log.scan(matching: RecordFilter(segment: 1)) { frames[$0.location.frameOffset, default: []].append($0.kind) }
        try log.close()
        let offsets = frames.keys.sorted()
        try #require(offsets.count >= 5, "the sample cache commits one frame per change: \(frames)")
        // Not the first frames (the globals record that marks the kind) and not the last two (the pending writes).
        let damagedFrame = offsets[2]
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: source).sorted().first { $0.hasSuffix(".seg") })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source + "/" + file))
        bytes[Int(offsets[3]) - 1] ^= 0x40   // the last byte of the third frame
        try bytes.write(to: URL(fileURLWithPath: source + "/" + file))

        let run = try Cairn.run(["salvage", source, "--output", output])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("(a Realtime Database cache)"), "\(run.stdout)")
        #expect(run.stdout.contains("lost: 1 damaged range(s)"), "\(run.stdout)")
        #expect(run.stdout.contains("  damage: segment 1 offset \(damagedFrame)"), "\(run.stdout)")
        #expect(run.stdout.contains("the salvaged cache opens"), "\(run.stdout)")
        let verify = try Cairn.run(["verify", output])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let dump = try Cairn.run(["dump", output])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("write 1  set  /rooms/r3  {\"title\":\"New\"}\n"), "\(dump.stdout)")
        #expect(dump.stdout.contains("write 2  update  /users/ada  {\"age\":37}\n"), "\(dump.stdout)")
    }
}
