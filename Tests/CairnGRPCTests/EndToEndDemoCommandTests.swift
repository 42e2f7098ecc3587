import CairnCore
import CairnTestSupport
import Foundation
import Testing

extension EmulatorTests {
    /// `cairn demo` (the README's main command) against the emulator, run as a child process: the offline story
    /// prints what it claims, the server really receives the writes, and the engine demo follows.
    @Suite("End to end: cairn demo against the emulator")
    struct EndToEndDemoCommandTests {
        @Test("The demo shows pending metadata offline, an empty server, then the synced server and false/false")
        func demoAgainstEmulator() async throws {
            let emulator = try await FirestoreEmulator.shared()
            let run = try await ChildProcess(
                executable: ChildProcess.cairn,
                arguments: ["demo", "--emulator", emulator.hostAndPort, "--rounds", "1", "--kill-after", "300"]
            ).run()
            try #require(run.status == 0, "\(run)")
            let lines = run.lines
            func index(_ prefix: String) throws -> Int {
                try #require(lines.firstIndex { $0.hasPrefix(prefix) }, "no line starts with \(prefix.debugDescription): \(lines)")
            }
            func event(after label: Int) throws -> String {
                try #require(lines[(label + 1)...].first { $0.hasPrefix("→") }, "no event after \(lines[label])")
            }
            let offlineServer = try index("4. the server (a raw RunQuery on cities) while offline")
            #expect(lines[offlineServer].hasSuffix(": 0 document(s)"), "nothing reaches the server while offline")
            let written = try index("setData TOK")
            #expect(try event(after: written).hasSuffix("isFromCache=true hasPendingWrites=true"))

            let reopened = try index("listen again")
            let restored = try event(after: reopened)
            #expect(restored.contains("[LA, SF, TOK]"), "the reopened cache holds the three cities")
            #expect(restored.hasSuffix("isFromCache=true hasPendingWrites=true"), "and their pending writes")
            let waited = try index("waitForPendingWrites() returned")
            #expect(lines[waited - 1].hasSuffix("isFromCache=false hasPendingWrites=false"), "the metadata settles")

            let syncedServer = try index("7. the server (a raw RunQuery on cities) after the sync")
            #expect(lines[syncedServer].hasSuffix(": 3 document(s)"))
            let cities = lines[(syncedServer + 1)...].prefix(3)
            #expect(cities.map { $0.split(separator: " ").first.map(String.init) } == ["LA", "SF", "TOK"])
            #expect(cities.dropFirst().first?.contains("population: 4870000") == true, "the increment was applied once")
            #expect(cities.last?.contains("founded: 20") == true, "the server resolved the serverTimestamp")
            #expect(try index("every acknowledged batch is there") > syncedServer, "the engine demo follows")
        }
    }
}
