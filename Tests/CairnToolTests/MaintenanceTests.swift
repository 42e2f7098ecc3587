import CairnModel
import Foundation
import Testing
@testable import CairnLocalStore

/// `cairn gc` and `cairn compact`: the dry runs announce exactly what the real runs then do.
@Suite("cairn gc and compact")
struct MaintenanceTests {
    private func lines(_ text: String, prefix: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix(prefix) }
            .map { String($0.dropFirst(prefix.count)) }
    }

    @Test("gc --dry-run lists exactly the targets and documents gc then removes")
    func garbageCollection() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let dryRun = try Cairn.run(["gc", directory.path, "--threshold", "0", "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let wouldEvict = lines(dryRun.stdout, prefix: "would evict ")
        let wouldRemove = lines(dryRun.stdout, prefix: "would remove target ")
        #expect(!wouldEvict.isEmpty && !wouldRemove.isEmpty, "\(dryRun.stdout)")
        // Documents under a pending write are never collected.
        #expect(!wouldEvict.contains("users/u5"), "\(dryRun.stdout)")

        let real = try Cairn.run(["gc", directory.path, "--threshold", "0"])
        #expect(real.status == 0, "\(real.stderr)")
        #expect(lines(real.stdout, prefix: "evict ") == wouldEvict)
        #expect(lines(real.stdout, prefix: "remove target ") == wouldRemove)
        #expect(real.stderr.contains("collecting"), "progress goes to stderr: \(real.stderr)")

        let store = try LocalStore.openReadOnly(at: directory.path)
        defer { try? store.close() }
        for path in wouldEvict { #expect(try store.remoteDocument(DocumentKey(parsing: path)) == nil, "\(path)") }
        #expect(try store.remoteDocument(DocumentKey(parsing: "users/u5")) != nil, "pending writes pin their document")
        for id in wouldRemove { #expect(store.targets.saved[Int32(id)!] == nil) }
    }

    @Test("gc on identical copies of a cache writes identical bytes and prints identical output", arguments: [0, 6000])
    func garbageCollectionIsDeterministic(threshold: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let original = directory.path + "/original"
        try SampleCache.build(at: original)
        // Each run is its own process, so Set and Dictionary orders differ between them (per-process hash seeds).
        var results: [(output: String, files: [String: Data])] = []
        for copy in 0..<3 {
            let path = directory.path + "/copy\(copy)"
            try FileManager.default.copyItem(atPath: original, toPath: path)
            let run = try Cairn.run(["gc", path, "--threshold", String(threshold)])
            #expect(run.status == 0, "\(run.stderr)")
            results.append((run.stdout.replacingOccurrences(of: path, with: "$CACHE"),
                            try snapshot(of: path).filter { $0.key != "LOCK" }))
        }
        #expect(results[0].output.contains("evict "), "\(results[0].output)")
        for result in results.dropFirst() {
            #expect(result.output == results[0].output)
            #expect(result.files.keys.sorted() == results[0].files.keys.sorted())
            for (name, bytes) in results[0].files { #expect(result.files[name] == bytes, "\(name) differs between runs") }
        }
    }

    @Test("compact --dry-run names the segments compact then rewrites, and compact frees their dead bytes")
    func compaction() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let dryRun = try Cairn.run(["compact", directory.path, "--dry-run", "--min-dead-ratio", "0.2"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let candidates = lines(dryRun.stdout, prefix: "segment ").map { String($0.prefix { $0 != ":" }) }
        #expect(!candidates.isEmpty, "\(dryRun.stdout)")

        let real = try Cairn.run(["compact", directory.path, "--min-dead-ratio", "0.2"])
        #expect(real.status == 0, "\(real.stderr)")
        let steps = lines(real.stderr, prefix: "step ")
        let compacted = steps.flatMap { step in
            step.split(separator: ":", maxSplits: 1)[1].split(separator: "→")[0]
                .replacingOccurrences(of: "segment(s)", with: "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(compacted.sorted() == candidates.sorted(), "\(real.stderr)")
        let bytes = lines(real.stdout, prefix: "before: ") + lines(real.stdout, prefix: "after:  ")
        #expect(bytes.count == 2)

        let inspector = try CacheInspector.open(at: directory.path)
        defer { inspector.close() }
        let segments = try inspector.statistics(threshold: -1).segments.map { String($0.id) }
        for id in candidates { #expect(!segments.contains(id), "segment \(id) was compacted away") }
        #expect(try inspector.compactionCandidates(minimumDeadRatio: 0.2).isEmpty)
    }
}
