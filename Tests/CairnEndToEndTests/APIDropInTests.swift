import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import Testing

/// Firebase code as its users write it, against plain `import Cairn`: the names and shapes Firebase's Apple SDK
/// has that Cairn lacked or spelled differently. A name that differed would make this file fail to compile; the
/// expectations check that the code does what Firebase code expects.
@Suite("API drop-in: Firebase's names compile and behave")
struct APIDropInTests {
    @Test("Filter.whereField(_:isGreaterOrEqualTo:), Firebase's Filter spelling, keeps values at or above, by String or FieldPath")
    func filterIsGreaterOrEqualTo() async throws {
        let env = EndToEndEnvironment(cache: .memoryEager)
        let cities = env.db.collection("cities")
        for (id, population) in [("SF", 870_000), ("LA", 3_900_000), ("TOK", 14_000_000), ("ZZ", 10)] {
            cities.document(id).setData(["population": population], completion: nil)
        }
        let byName = try await cities.whereFilter(Filter.whereField("population", isGreaterOrEqualTo: 870_000))
            .getDocuments(source: .cache)
        #expect(Set(byName.documents.map(\.documentID)) == ["SF", "LA", "TOK"])
        let byPath = try await cities.whereFilter(Filter.orFilter([
            Filter.whereField(FieldPath(["population"]), isGreaterOrEqualTo: 3_900_000),
            Filter.whereField("population", isEqualTo: 10),
        ])).getDocuments(source: .cache)
        #expect(Set(byPath.documents.map(\.documentID)) == ["LA", "TOK", "ZZ"])
        await env.tearDown()
    }

    @Test("Timestamp.copy() gives a timestamp equal to the original, as Firebase's NSCopying does")
    func timestampCopy() throws {
        let timestamp = Timestamp(seconds: 1_700_000_000, nanoseconds: 123)
        let copy = try #require(timestamp.copy() as? Timestamp)
        #expect(copy == timestamp && copy.compare(timestamp) == .orderedSame)
        #expect(copy.hashValue == timestamp.hashValue)
        let copying: any NSCopying = timestamp
        #expect(copying.copy(with: nil) as? Timestamp == timestamp)
    }

    @Test("persistentCacheIndexManager is one object per instance; managers are equal only to themselves, as NSObjects")
    func indexManagerEquality() async throws {
        let env = EndToEndEnvironment()
        let other = EndToEndEnvironment()
        let manager = try #require(env.db.persistentCacheIndexManager)
        let again = try #require(env.db.persistentCacheIndexManager)
        let another = try #require(other.db.persistentCacheIndexManager)
        #expect(manager == again)
        #expect(manager != another)
        #expect(Set([manager, again, another]).count == 2)
        await env.tearDown()
        await other.tearDown()
    }

    @Test("The memory GC settings have Firebase's Swift names, MemoryEagerGCSetting and MemoryLRUGCSettings")
    func memoryGCSettingNames() {
        let settings = FirestoreSettings()
        settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
        let eager = settings.cacheSettings as? MemoryCacheSettings
        #expect(eager?.garbageCollectorSettings is MemoryEagerGCSetting)
        let size: Int64 = 10 * 1024 * 1024
        settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings(sizeBytes: NSNumber(value: size)))
        let lru = (settings.cacheSettings as? MemoryCacheSettings)?.garbageCollectorSettings as? MemoryLRUGCSettings
        let lruSize: Int64? = lru?.sizeBytes
        #expect(lruSize == size)
    }

    @Test("FirestoreErrorCode codes match an Error in catch clauses and switch cases, as Firebase's bridged codes do")
    func errorCodePatterns() async throws {
        let env = EndToEndEnvironment(cache: .memoryEager)
        let ref = env.db.collection("cities").document("SF")
        var caught = false
        do {
            _ = try await ref.getDocument(source: .server)
            Issue.record("a server read succeeded offline")
        } catch FirestoreErrorCode.notFound {
            Issue.record("notFound matched an unavailable error")
        } catch FirestoreErrorCode.unavailable {
            caught = true
        }
        #expect(caught)

        let failure = Inbox<Error>()
        ref.getDocument(source: .cache) { _, error in
            if let error { failure.put(error) }
        }
        let error = try #require(await failure.next())
        switch error {
        case FirestoreErrorCode.permissionDenied:
            Issue.record("permissionDenied matched an unavailable error")
        case FirestoreErrorCode.unavailable:
            break
        default:
            Issue.record("unavailable did not match \(error)")
        }

        let bridged: Error = NSError(domain: FirestoreErrorDomain, code: FirestoreErrorCode.aborted.rawValue)
        #expect(FirestoreErrorCode.aborted ~= bridged)
        let foreign: Error = NSError(domain: "OtherDomain", code: FirestoreErrorCode.aborted.rawValue)
        #expect(!(FirestoreErrorCode.aborted ~= foreign))
        await env.tearDown()
    }
}
