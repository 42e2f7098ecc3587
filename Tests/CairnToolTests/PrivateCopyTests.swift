import CairnTestSupport
import Foundation
import CairnLocalStore
import Testing

/// Salvage writes a new cache: it is as private as one the engine creates (directory 0700, files 0600), even
/// when the damaged cache it copies was written world-readable by an older version.
@Suite("Private copies")
struct PrivateCopyTests {
    @Test("salvage of a world-readable cache creates the output directory 0700 and its files 0600 (umask 022)")
    func salvageOutputIsPrivate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = directory.path + "/cache", output = directory.path + "/salvaged"
        try SampleCache.build(at: source)
        // A cache from before caches were private: 0755 directory, 0644 files.
        #expect(chmod(source, 0o755) == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            #expect(chmod(source + "/" + name, 0o644) == 0)
        }
        #expect(try FileModes(under: source).notPrivate.count > 2, "the source is world-readable")
        let result = try withUmask(0o022) { try CacheSalvage.salvage(from: source, to: output) }
        #expect(result.replayProblem == nil)
        let modes = try FileModes(under: output)
        #expect(modes.files.contains { $0.path.hasSuffix("/MANIFEST") })
        #expect(modes.files.contains { $0.path.hasSuffix(".seg") })
        #expect(modes.notPrivate.isEmpty, "not private: \(modes.notPrivate)")
    }
}
