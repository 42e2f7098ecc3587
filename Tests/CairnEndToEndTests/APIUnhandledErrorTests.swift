import CairnCoreTestSupport
import CairnCore
import Foundation
import Synchronization
import Testing

@testable import Cairn

/// Errors nobody asked to receive are reported, never dropped: Firebase raises for invalid data and logs failed
/// writes; Cairn writes the message to standard error (here: to a collecting sink).
@Suite("API errors without a completion handler", .serialized)
struct APIUnhandledErrorTests {
    /// Runs `body` with the sink replaced by a collector; returns the messages that mention `marker` (other
    /// suites may report at the same time).
    private func collect(mentioning marker: String, _ body: () async throws -> Void) async rethrows -> [String] {
        let seen = Mutex<[String]>([])
        let previous = UnhandledErrors.sink.withLock { sink in
            defer { sink = { message in seen.withLock { $0.append(message) } } }
            return sink
        }
        defer { UnhandledErrors.sink.withLock { $0 = previous } }
        try await body()
        return seen.withLock { $0 }.filter { $0.contains(marker) }
    }

    @Test("setData with an unsupported value and no completion reports Firebase's message and writes nothing")
    func invalidDataWithoutCompletion() async throws {
        let env = EndToEndEnvironment(cache: .memoryEager)
        let messages = await collect(mentioning: "unhandledMarker") {
            env.db.document("c/d").setData(["unhandledMarker": ["b": URL(fileURLWithPath: "/")]])
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Unsupported type: URL (found in field unhandledMarker.b)") == true)
        #expect(try await env.db.collection("c").getDocuments(source: .cache).isEmpty, "nothing was written")
        await env.tearDown()
    }

    @Test("With a completion handler the error goes to the handler only")
    func invalidDataWithCompletion() async throws {
        let env = EndToEndEnvironment(cache: .memoryEager)
        let received = Mutex<[String]>([])
        let messages = await collect(mentioning: "Nested arrays") {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                env.db.document("c/d").updateData(["handledMarker": [[1]]]) { error in
                    received.withLock { $0.append("\(error.map { "\($0)" } ?? "no error")") }
                    done.resume()
                }
            }
        }
        #expect(messages.isEmpty)
        #expect(received.withLock { $0 }.count == 1)
        #expect(received.withLock { $0 }.first?.contains("Nested arrays are not supported") == true)
    }

    @Test("A damaged cache's recovery is reported in one line: the damage, the damaged copy, what was kept")
    func damagedCacheRecoveryReported() async throws {
        let env = EndToEndEnvironment()
        try await DamagedCacheFixture.writeOfflineData(env)
        try await env.restart()
        try DamagedCacheFixture.Damage.deleteManifest.apply(to: env.directory)
        let messages = try await collect(mentioning: env.directory.path) {
            _ = try await env.db.collection("cities").getDocuments(source: .cache)
        }
        let copy = try #require(try DamagedCacheFixture.damagedCopies(of: env.directory).first)
        #expect(messages.count == 1, "\(messages)")
        let message = try #require(messages.first)
        #expect(message.hasPrefix("Data loss: the local cache at \(env.directory.path) was recovered at "), "\(message)")
        #expect(message.contains("MANIFEST is missing"))
        #expect(message.contains("the damaged copy is kept in \(copy.path)"))
        #expect(message.contains("and 9 pending write batch(es), lost 0 damaged range(s)"), "\(message)")
        await DamagedCacheFixture.tearDown(env)
    }
}
