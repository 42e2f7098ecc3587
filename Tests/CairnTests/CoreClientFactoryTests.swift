import CairnModel
import Foundation
import Testing

@testable import Cairn

/// The default client factory: default settings open a persistent cache in the XDG data directory, memory
/// settings open none, and the datastore is the unreachable one until a transport is installed.
@Suite("Core client factory")
struct CoreClientFactoryTests {
    @Test("Default settings open a persistent cache under $XDG_DATA_HOME/cairn/<project>/<database>")
    func defaultSettingsArePersistent() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("factory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let databaseID = DatabaseID(projectID: "factory-test", databaseID: "(default)")
        let configuration = ClientConfiguration(
            databaseID: databaseID, settings: FirestoreSettings(environment: [:]),
            environment: ["XDG_DATA_HOME": base.path])
        let bridge = try CoreClientFactory.makeClient(configuration)
        let directory = base.appendingPathComponent("cairn/factory-test/(default)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("LOCK").path))
        let adapter = try #require(bridge as? ClientBridgeAdapter)
        #expect(adapter.client.remoteStore.datastore is UnreachableDatastore)
        let error: FirestoreErrorCode? = await withCheckedContinuation { continuation in
            bridge.terminate { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        try CoreClientFactory.clearPersistence(configuration)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("Memory settings open no files")
    func memorySettingsOpenNoFiles() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("factory-\(UUID().uuidString)")
        let settings = FirestoreSettings(environment: [:])
        settings.cacheSettings = MemoryCacheSettings()
        let configuration = ClientConfiguration(
            databaseID: DatabaseID(projectID: "factory-memory", databaseID: "(default)"), settings: settings,
            environment: ["XDG_DATA_HOME": base.path])
        let bridge = try CoreClientFactory.makeClient(configuration)
        #expect(!FileManager.default.fileExists(atPath: base.path))
        let _: FirestoreErrorCode? = await withCheckedContinuation { continuation in
            bridge.terminate { continuation.resume(returning: $0) }
        }
    }
}
