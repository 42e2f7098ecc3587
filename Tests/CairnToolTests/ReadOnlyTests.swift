import Foundation
import Testing

/// Commands that only read leave every byte of the cache as it was, and add or remove no file.
@Suite("cairn read-only commands")
struct ReadOnlyTests {
    @Test("inspect, dump, stats, verify, outbox and the dry runs leave every file byte-identical",
          arguments: [
              ["inspect"], ["dump"], ["dump", "--json", "--segment", "1"], ["stats", "--threshold", "1000"], ["verify"],
              ["outbox"], ["compact", "--dry-run", "--min-dead-ratio", "0.01"], ["gc", "--threshold", "0", "--dry-run"],
          ])
    func unchanged(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        let before = try snapshot(of: cache)
        let arguments = [command[0], cache] + command.dropFirst()
            + (command[0] == "stats" ? ["--svg", directory.path + "/picture.svg"] : [])
        let run = try Cairn.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let after = try snapshot(of: cache)
        #expect(after.keys.sorted() == before.keys.sorted())
        for (name, bytes) in before { #expect(after[name] == bytes, "\(name) changed") }
    }

    @Test("a cache with an unfinished write at its end is read without cutting it")
    func unfinishedTail() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        // Garbage after the last commit, as a crash in the middle of a write leaves it.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".seg") }.sorted()
        let active = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/" + files.last!))
        try active.seekToEnd()
        try active.write(contentsOf: Data(repeating: 0xAB, count: 100))
        try active.close()
        let before = try snapshot(of: directory.path)
        let run = try Cairn.run(["verify", directory.path])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("note: unfinished write at the end of the log: 100 bytes"), "\(run.stdout)")
        #expect(try snapshot(of: directory.path) == before)
    }
}
