import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API settings and instances")
struct APISettingsTests {
    @Test("A cache size under 1 MiB makes every call report invalidArgument with Firebase's minimum")
    func cacheSizeMinimum() async throws {
        let env = APITestEnvironment { settings in
            settings.cacheSettings = PersistentCacheSettings(sizeBytes: 1_048_575)
        }
        do {
            try await env.db.document("a/b").setData(["x": 1])
            Issue.record("a 1 MiB - 1 cache was accepted")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .invalidArgument)
            #expect(error.message.hasPrefix("Cache size must be set to at least 1048576 bytes"))
        }
        await #expect(throws: FirestoreErrorCode.self) { try await env.db.disableNetwork() }
    }

    @Test("Unlimited and 1 MiB caches are accepted, and the configuration resolves the XDG directory")
    func cacheSizesAccepted() throws {
        for size in [FirestoreCacheSizeUnlimited, 1_048_576] {
            let env = APITestEnvironment { settings in
                settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: size))
            }
            guard case .persistent(let directory, let sizeBytes, _) = env.db.configuration.cache else {
                Issue.record("expected a persistent cache")
                continue
            }
            #expect(sizeBytes == size)
            #expect(directory.path.hasSuffix("cairn/@\(env.projectID)/\(env.projectID)/(default)"))
        }
        let xdg = ClientConfiguration.defaultCacheDirectory(
            databaseID: DatabaseID(projectID: "p", databaseID: "db"), environment: ["XDG_DATA_HOME": "/data"])
        #expect(xdg.path == "/data/cairn/p/db")
        let home = ClientConfiguration.defaultCacheDirectory(
            databaseID: DatabaseID(projectID: "p"), environment: ["HOME": "/home/u", "XDG_DATA_HOME": "relative"])
        #expect(home.path == "/home/u/.local/share/cairn/p/(default)")
        let named = ClientConfiguration.defaultCacheDirectory(
            appName: "analytics", databaseID: DatabaseID(projectID: "p"), environment: ["XDG_DATA_HOME": "/data"])
        #expect(named.path == "/data/cairn/@analytics/p/(default)")
        let climbing = ClientConfiguration.defaultCacheDirectory(
            appName: "../../etc", databaseID: DatabaseID(projectID: "p"), environment: ["XDG_DATA_HOME": "/data"])
        #expect(climbing.path == "/data/cairn/@%2E%2E%2F%2E%2E%2Fetc/p/(default)")
    }

    @Test("Two apps on one project each open their own default persistent cache; neither locks the other out")
    func twoAppsOneProject() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("two-apps-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let projectID = "shared-\(UUID().uuidString.lowercased())"
        let names = ["first-\(projectID)", "second-\(projectID)"]
        var instances: [Firestore] = []
        for name in names {
            FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: projectID))
            let db = Firestore(
                app: FirebaseApp.app(name: name)!, database: "(default)", environment: ["XDG_DATA_HOME": base.path])
            let settings = db.settings
            settings.datastoreProvider = UnreachableDatastore.provider
            db.settings = settings
            instances.append(db)
        }
        for (db, name) in zip(instances, names) {
            guard case .success = db.client() else {
                Issue.record("app \(name) could not open its cache: \(db.client())")
                continue
            }
            let directory = base.appendingPathComponent("cairn/@\(name)/\(projectID)/(default)")
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("LOCK").path))
        }
        for db in instances { try await db.terminate() }
    }

    @Test("Mixing cacheSettings with the legacy persistence fields is rejected when the instance starts")
    func legacyMix() {
        let env = APITestEnvironment { settings in
            settings.isPersistenceEnabled = false
        }
        guard case .failure(let error) = env.db.client() else {
            Issue.record("a mix of cacheSettings and isPersistenceEnabled started")
            return
        }
        #expect(error.message.contains("cacheSettings cannot be mixed"))
    }

    @Test("Memory caches: LRU towards 100 MiB by default, as Firebase's; LRU with its size; legacy isPersistenceEnabled = false is a memory cache")
    func memoryCaches() {
        #expect(APITestEnvironment().db.configuration.cache == .memory(lruSizeBytes: 104_857_600))
        let lru = APITestEnvironment { settings in
            settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings(sizeBytes: 2_000_000))
        }
        #expect(lru.db.configuration.cache == .memory(lruSizeBytes: 2_000_000))
        let legacy = FirestoreSettings()
        legacy.isPersistenceEnabled = false
        #expect(legacy.cacheSettings is MemoryCacheSettings)
        #expect(FirestoreSettings().cacheSettings is PersistentCacheSettings)
    }

    @Test("Settings freeze once the instance starts: setSettings throws, assignment is ignored")
    func settingsFreeze() throws {
        let env = APITestEnvironment()
        let before = env.db.settings.host
        env.db.collection("c").document("d").delete()
        let late = env.db.settings
        late.host = "elsewhere:1"
        #expect(throws: FirestoreErrorCode.self) { try env.db.setSettings(late) }
        env.db.settings = late
        #expect(env.db.settings.host == before)
    }

    @Test("FIRESTORE_EMULATOR_HOST in the environment points new settings at the emulator")
    func emulatorEnvironment() {
        let settings = FirestoreSettings(environment: ["FIRESTORE_EMULATOR_HOST": "127.0.0.1:9090"])
        #expect(settings.host == "127.0.0.1:9090" && !settings.isSSLEnabled)
        #expect(settings.copy().host == "127.0.0.1:9090")
        let plain = FirestoreSettings(environment: [:])
        #expect(plain.host == FirestoreSettings.defaultHost && plain.isSSLEnabled)
    }

    @Test("terminate is idempotent: the client is terminated once")
    func terminateTwice() async throws {
        let env = APITestEnvironment()
        _ = env.server
        try await env.db.terminate()
        try await env.db.terminate()
        #expect(!env.db.isRunning)
    }

    @Test("useEmulator sets host:port without TLS, before the instance starts")
    func emulator() {
        let env = APITestEnvironment()
        env.db.useEmulator(withHost: "localhost", port: 8080)
        #expect(env.db.settings.host == "localhost:8080")
        #expect(!env.db.settings.isSSLEnabled)
        #expect(env.db.configuration.databaseInfo.host == "localhost:8080")
        #expect(!env.db.configuration.databaseInfo.isSSLEnabled)
    }

    @Test("One instance per app and database until terminate; terminated instances report failedPrecondition")
    func instances() async throws {
        let env = APITestEnvironment()
        let app = env.db.app
        #expect(Firestore.firestore(app: app) === env.db)
        #expect(Firestore.firestore(app: app, database: "other") !== env.db)
        #expect(Firestore.firestore(app: app, database: "other").databaseID.databaseID == "other")
        try await env.db.terminate()
        #expect(Firestore.firestore(app: app) !== env.db)
        do {
            try await env.db.document("a/b").delete()
            Issue.record("a terminated instance accepted a write")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .failedPrecondition)
        }
    }

    @Test("Settings are copied on assignment, so later changes to the object do nothing")
    func settingsCopy() {
        let env = APITestEnvironment()
        let settings = env.db.settings
        settings.host = "changed:1"
        #expect(env.db.settings.host != "changed:1")
    }

    @Test("An app without a project ID cannot start Firestore: invalidArgument naming the option")
    func missingProjectID() async throws {
        _ = APITestEnvironment()
        let name = "no-project-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1"))
        let db = Firestore.firestore(app: try #require(FirebaseApp.app(name: name)))
        do {
            try await db.document("a/b").delete()
            Issue.record("started without a project ID")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .invalidArgument && error.message.hasPrefix("FirebaseOptions.projectID must be set"))
        }
    }
}
