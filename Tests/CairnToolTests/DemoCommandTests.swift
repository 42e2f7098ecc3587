import Testing

/// `cairn demo` run as the README runs it, offline only (the emulator version runs in CairnGRPCTests).
@Suite("cairn demo")
struct DemoCommandTests {
    @Test("--offline: one line says so, the offline tour survives its restart, then the engine's SIGKILL rounds")
    func offlineDemo() throws {
        let run = try Cairn.run(["demo", "--offline", "--rounds", "1", "--kill-after", "300"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "--offline: the public-API demo runs offline only, with no server")
        #expect(lines.contains("the data and the outbox survived: 3 of 3 documents wait for the backend"))
        // The offline tour injects the unreachable datastore: no server is tried, a server get fails offline.
        #expect(lines.contains { $0.contains("this instance is offline-only") }, "\(run.stdout)")
        #expect(lines.contains { $0.contains("FirestoreErrorCode(unavailable)") }, "the server get fails offline")
        #expect(!lines.contains { $0.contains("Firestore emulator") }, "no emulator is started or used")
        // The damaged cache: verify names one damaged frame, the app recovers and keeps the other pending notes.
        #expect(lines.contains("  cairn verify: 1 damaged frame(s) (exit 1)"), "\(run.stdout)")
        #expect(lines.contains("  19 of 20 notes came back, 19 still pending (the damaged frame held the rest)"), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("  cairn inspect: this cache was recovered at ") }, "\(run.stdout)")
        #expect(run.stderr.contains("was recovered"), "the app's one-line report: \(run.stderr)")
        #expect(lines.contains { $0.hasPrefix("round 1: the writer acknowledged durable batch") })
        #expect(lines.contains { $0.contains("every acknowledged batch is there") })
        #expect(lines.contains { $0.hasPrefix("compaction: ") })
    }

    @Test("A malformed --emulator address is a usage error (exit 2) that names the option")
    func badEmulatorAddress() throws {
        let run = try Cairn.run(["demo", "--emulator", "localhost"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--emulator"), "\(run.stderr)")
    }
}
