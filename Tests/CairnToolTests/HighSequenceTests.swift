import CairnModel
import Foundation
import CairnLocalStore
import Testing
@testable import SegmentLog

/// `cairn` on a cache whose LSNs are at the top of their range: just under 2^62, the largest SegmentLog
/// writes (once, an LSN of 2^63 or more made `dump --json` trap converting it to Int64).
@Suite("cairn on LSNs near 2^62")
struct HighSequenceTests {
    static let firstLSN: UInt64 = (1 << 62) - 10

    /// A cache of three documents whose records get LSNs from ``firstLSN`` on: the manifest's LSN floor is
    /// raised before anything is written.
    func build(at directory: String) throws {
        let configuration = SampleCache.configuration
        try SegmentLog.open(at: directory, configuration: configuration).close()
        var manifest = try Manifest.read(from: directory, fileSystem: configuration.fileSystem)
        manifest.lsnFloor = Self.firstLSN
        try manifest.write(to: directory, fileSystem: configuration.fileSystem)
        let store = try LocalStore.open(at: directory, configuration: configuration)
        for i in 0..<3 {
            try store.applyRemoteDocuments([Document(
                key: SampleCache.key("rooms/r\(i)"), state: .found, version: SampleCache.time(Int64(i)),
                readTime: SampleCache.time(Int64(i)), data: ObjectValue(["n": .integer(Int64(i))]))])
        }
        try store.close()
    }

    @Test("dump --json prints LSNs just under 2^62 exactly, and every read command succeeds")
    func dumpJSON() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try build(at: directory.path)
        let run = try Cairn.run(["dump", "--json", directory.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for (i, line) in lines.enumerated() {
            #expect(line.hasPrefix("{\"lsn\":\(Self.firstLSN + UInt64(i)),"), "\(line)")
        }
        for command in [["inspect"], ["dump"], ["stats"], ["verify"], ["outbox"]] {
            let run = try Cairn.run(command + [directory.path])
            #expect(run.status == 0, "\(command): \(run.stdout)\(run.stderr)")
        }
    }
}
