import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Foundation
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// Evidence 3: writes made offline survive the process that made them, and a later process sends them to the
    /// server in order and exactly once. Every process here is the built `cairn` tool (`cairn sync-child`), on
    /// one persistent cache directory; the server is read with the raw RPC client.
    @Suite("End to end: restart while offline, in child processes", .serialized)
    struct EndToEndRestartTests {
        @Test("Two processes write offline and exit abruptly; a third syncs: in order, exactly once")
        func restartWhileOffline() async throws {
            let project = "cairn-e2e-restart"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-restart-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: cache) }
            func child(_ arguments: [String]) async throws -> ChildProcess.Outcome {
                try await ChildProcess(
                    executable: ChildProcess.cairn,
                    arguments: ["sync-child"] + arguments + [cache.path, "--emulator", emulator.hostAndPort, "--project", project]
                ).run()
            }

            for (first, count) in [(1, 5), (6, 3)] {
                let writer = try await child(["write", "--first", "\(first)", "--count", "\(count)"])
                #expect(writer.status == 0 && writer.lines.last == "written \(count) pending", "\(writer)")
                #expect(try await serverDocuments(rpc).isEmpty, "nothing may reach the server while offline")
                #expect(try await counter(rpc) == nil)
            }

            let syncer = try await child(["sync"])
            #expect(syncer.status == 0 && syncer.lines.suffix(2) == ["synced", "settled 8"], "\(syncer)")

            let names = (1...8).map { "w00\($0)" }
            let documents = try await serverDocuments(rpc)
            #expect(documents.map(\.key.documentID) == names, "every write's own document, once")
            #expect(documents.map { $0.data.fields["i"] } == (1...8).map { .integer(Int64($0)) })
            let versions = documents.map(\.version)
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }, "one commit per write, in order: \(versions)")
            let stored = try #require(try await counter(rpc))
            #expect(stored.fields["count"] == .integer(8), "each increment applied exactly once")
            #expect(stored.fields["last"] == .integer(8), "the last write applied last")
            #expect(stored.fields["trail"] == .array(names.map { .string($0) }), "arrayUnion appends in the order applied")
        }

        /// The documents of `items` on the server, by name.
        private func serverDocuments(_ rpc: FirestoreRPC) async throws -> [Document] {
            try await rpc.runQuery(CairnModel.Query(path: try ResourcePath(parsing: "items")))
        }

        /// `meta/counter` on the server, nil when missing.
        private func counter(_ rpc: FirestoreRPC) async throws -> ObjectValue? {
            let document = try await rpc.lookup([try DocumentKey(parsing: "meta/counter")])[0]
            return document.exists ? document.data : nil
        }
    }
}
