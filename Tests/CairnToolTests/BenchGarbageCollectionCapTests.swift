import Foundation
import Testing

/// `cairn-bench query --gc-cap-seconds N`: an engine whose lru_gc_to_threshold run has not reached the threshold
/// after N seconds stops there, is reported as not finished (progress line, table, JSON) and skips its later runs.
/// The hidden `--gc-round-pause-ms` sleeps after each round, so a run of Cairn at 5,000 documents certainly outlasts
/// a 1 s cap with 500 ms pauses: it needs more than 2 rounds (16 measured in a debug build; a round collects at most
/// 1,000 sequence numbers, and half the cache's bytes are about 3,000 documents).
@Suite("cairn-bench query --gc-cap-seconds")
struct BenchGarbageCollectionCapTests {
    /// Runs lru_gc_to_threshold on Cairn alone at 5,000 documents, two runs, with `extra` options; returns the run
    /// and the workload's JSON entry.
    static func bench(_ extra: [String]) throws -> (run: Cairn.Run, entry: [String: Any]) {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let json = directory.path + "/gc.json"
        let run = try Cairn.run(
            [
                "query", "--docs", "5000", "--engines", "cairn", "--workloads", "lru_gc_to_threshold", "--runs", "2",
                "--no-memory", "--json", json,
            ] + extra, executable: BenchFixtureCacheTests.binary)
        #expect(run.status == 0, "cairn-bench failed: \(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: json)))
        let workloads = try #require((object as? [String: Any])?["workloads"] as? [[String: Any]])
        let entry = try #require(workloads.first { $0["name"] as? String == "lru_gc_to_threshold" })
        return (run, entry)
    }

    @Test("a run still over the threshold when the cap has passed is reported not finished and the later run is skipped")
    func cappedRunIsNotFinished() throws {
        let (run, entry) = try Self.bench(["--gc-cap-seconds", "1", "--gc-round-pause-ms", "500"])
        #expect(run.stderr.contains("lru_gc_to_threshold: cairn did NOT finish in 1 s in "), "\(run.stderr)")
        #expect(run.stderr.contains("lru_gc_to_threshold run 2/2 cairn: skipped (not finished in 1 s in an earlier run)"))
        #expect(!run.stderr.contains("reached the threshold"))
        #expect(run.stdout.contains("not finished in 1 s"), "\(run.stdout)")
        #expect(entry["cairn_not_finished_in_s"] as? Int == 1)
        #expect(entry["cairn_samples"] as? Int == 1, "only run 1 was measured")
    }

    @Test("without pauses and with a generous cap, the run reaches the threshold and reports no cap")
    func uncappedRunFinishes() throws {
        let (run, entry) = try Self.bench(["--gc-cap-seconds", "600"])
        #expect(run.stderr.contains("lru_gc_to_threshold: cairn reached the threshold in "), "\(run.stderr)")
        #expect(run.stderr.contains("lru_gc_to_threshold run 2/2 cairn: "))
        #expect(!run.stderr.contains("skipped"))
        #expect(!run.stdout.contains("not finished"))
        #expect(entry["cairn_not_finished_in_s"] is NSNull)
        #expect(entry["cairn_samples"] as? Int == 2)
    }
}
