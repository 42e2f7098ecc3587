import CairnCore
import CairnCoreTestSupport
import CairnGRPC
import CairnModel
import Foundation
import Testing

@testable import Cairn

/// How an instance starts its core: default settings open a persistent cache in the XDG data directory and talk
/// gRPC, memory settings open no files, and a datastore in the settings replaces gRPC.
@Suite("Client start")
struct ClientStartTests {
    @Test("Default settings open a persistent cache under $XDG_DATA_HOME/cairn/<project>/<database>, with the gRPC datastore")
    func defaultSettingsArePersistent() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("factory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let databaseID = DatabaseID(projectID: "factory-test", databaseID: "(default)")
        let configuration = ClientConfiguration(
            databaseID: databaseID, settings: FirestoreSettings(environment: [:]),
            environment: ["XDG_DATA_HOME": base.path])
        let started = try configuration.startClient()
        let directory = base.appendingPathComponent("cairn/factory-test/(default)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("LOCK").path))
        let client = started.client
        #expect(try client.queue.enqueueAndWait { client.remoteStore.datastore is GRPCDatastore })
        started.client.disableNetwork { _ in }
        let error: FirestoreErrorCode? = await withCheckedContinuation { continuation in
            started.client.terminate { continuation.resume(returning: $0) }
        }
        started.claim?.release()
        #expect(error == nil)
        try configuration.clearPersistence()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("Memory settings open no files; a datastore provider in the settings replaces gRPC")
    func memorySettingsOpenNoFiles() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("factory-\(UUID().uuidString)")
        let settings = FirestoreSettings(environment: [:])
        settings.cacheSettings = MemoryCacheSettings()
        settings.datastoreProvider = UnreachableDatastore.provider
        let configuration = ClientConfiguration(
            databaseID: DatabaseID(projectID: "factory-memory", databaseID: "(default)"), settings: settings,
            environment: ["XDG_DATA_HOME": base.path])
        let started = try configuration.startClient()
        #expect(!FileManager.default.fileExists(atPath: base.path))
        let client = started.client
        #expect(try client.queue.enqueueAndWait { client.remoteStore.datastore is UnreachableDatastore })
        let _: FirestoreErrorCode? = await withCheckedContinuation { continuation in
            started.client.terminate { continuation.resume(returning: $0) }
        }
    }
}
