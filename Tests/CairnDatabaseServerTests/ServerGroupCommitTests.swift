import CairnDatabaseCore
import CairnTestSupport
@testable import CairnDatabaseServer
import Foundation
import SegmentLog
import Synchronization
import Testing

/// The real file system, except that once ``hold()`` is called every file sync waits until ``release()``: a
/// stand-in for a slow `fdatasync`.
final class GatedFileSystem: ForwardingFileSystem, @unchecked Sendable {
    private let gate = Gate()

    init() { super.init(base: PosixFileSystem()) }

    final class Gate: Sendable {
        let holding = Mutex(false)
        let released = DispatchSemaphore(value: 0)
        let waiting = Atomic(0)
    }

    /// Syncs that are waiting now.
    var waitingSyncs: Int { gate.waiting.load(ordering: .acquiring) }

    func hold() { gate.holding.withLock { $0 = true } }

    func release() {
        gate.holding.withLock { $0 = false }
        for _ in 0..<max(waitingSyncs, 1) { gate.released.signal() }
    }

    override func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile { GatedFile(try base.open(path, mode), gate: gate) }

    final class GatedFile: ForwardingStorageFile, @unchecked Sendable {
        private let gate: Gate

        init(_ file: any StorageFile, gate: Gate) {
            self.gate = gate
            super.init(base: file)
        }

        override func sync() throws {
            if gate.holding.withLock({ $0 }) {
                gate.waiting.add(1, ordering: .acquiringAndReleasing)
                gate.released.wait()
                gate.waiting.subtract(1, ordering: .acquiringAndReleasing)
            }
            try base.sync()
        }
    }
}

@Suite("Server storage: group commit, a write acknowledged once durable, the core never locked during a sync", .serialized)
struct ServerGroupCommitTests {
    @Test("While one write's sync is slow, other connections' requests are answered; its acknowledgement waits for the sync")
    func syncRunsOutsideTheLock() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-rtdb-gc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fileSystem = GatedFileSystem()
        let (storage, database) = try ServerStorage.open(directory: directory, fileSystem: fileSystem)
        let core = fixedCore()
        core.restore(database, storage: storage)
        let writer = SessionRecorder(core: core, namespace: "gc")
        let reader = SessionRecorder(core: core, namespace: "gc")
        _ = writer.take()
        _ = reader.take()

        fileSystem.hold()
        // The put runs on a thread of its own: it blocks there until the sync is released.
        let putDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            writer.send("p", json(#"{"p":"/a","d":1}"#))
            putDone.signal()
        }
        try await waitUntil { fileSystem.waitingSyncs > 0 }
        #expect(fileSystem.waitingSyncs > 0, "the put never reached its sync")

        // The core is free: another connection's get is answered while the sync waits (on a thread of its own
        // too, so that a core locked during the sync fails this test after the hang guard instead of hanging it).
        let getDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            reader.send("g", json(#"{"p":"/a"}"#))
            getDone.signal()
        }
        try await waitUntil { getDone.wait(timeout: .now()) == .success }
        #expect(reader.take().response(to: 1)?["d"] == .int(1))
        #expect(writer.take().isEmpty, "the put was acknowledged before its sync")
        #expect(fileSystem.waitingSyncs > 0)

        fileSystem.release()
        try await waitUntil { putDone.wait(timeout: .now()) == .success }
        #expect(writer.take().response(to: 1)?["s"] == .string("ok"))
        try storage.close()
    }

    @Test("An acknowledged write is in the log when the server reopens it")
    func acknowledgedWriteIsStored() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-rtdb-gc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (storage, database) = try ServerStorage.open(directory: directory)
        let core = fixedCore()
        core.restore(database, storage: storage)
        let writer = SessionRecorder(core: core, namespace: "gc")
        _ = writer.take()
        let put = writer.send("m", json(#"{"p":"/users","d":{"ada/age":37,"bob":{"age":40}}}"#))
        #expect(writer.take().response(to: put)?["s"] == .string("ok"))
        try storage.close()
        let (reopened, restored) = try ServerStorage.open(directory: directory)
        #expect(restored.read(namespace: "gc", path: .root).exportJSON() == json(#"{"users":{"ada":{"age":37},"bob":{"age":40}}}"#))
        try reopened.close()
    }
}
