import Cairn
import Foundation
import Testing

/// The offline demo `cairn demo` prints first, run as a library call.
@Suite("End to end: the offline demo")
struct EndToEndDemoTests {
    @Test("The demo's restart finds every document and every pending write it made before terminating")
    func demoRestartKeepsDataAndOutbox() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = Inbox<String>()
        let summary = try await OfflineDemo.run(directory: directory, appName: "e2e-demo-\(UUID().uuidString)") {
            lines.put($0)
        }
        #expect(summary.eventCount == 5, "one event for the listen, each single write and the batch")
        #expect(summary.documentsAfterRestart == [
            .init(id: "LA", population: 3_900_000, hasPendingWrites: true),
            .init(id: "SF", population: 4_870_000, hasPendingWrites: true),
            .init(id: "TOK", population: 14_000_000, hasPendingWrites: true),
        ])
        let output = lines.pending
        #expect(output.contains { $0.contains("no backend is configured") })
        #expect(output.contains { $0.contains("FirestoreErrorCode(unavailable)") }, "the server get fails offline")
    }
}
