import CairnCoreTestSupport
import CairnModel
import Testing
@testable import CairnCore

@Suite("QueryListener: first-event gating and metadata filtering")
struct QueryListenerTests {
    typealias F = CoreFixtures

    /// A listener that records what it raises.
    final class Recorder: @unchecked Sendable {
        var snapshots: [ViewSnapshot] = []
        var errors: [FirestoreErrorCode] = []

        func listener(_ options: ListenOptions = ListenOptions()) -> QueryListener {
            QueryListener(query: F.rooms, options: options) { [self] result in
                switch result {
                case .success(let snapshot): snapshots.append(snapshot)
                case .failure(let error): errors.append(error)
                }
            }
        }
    }

    private func snapshot(_ view: View, _ changed: [DocumentKey: Document?], current: Bool? = nil) -> ViewSnapshot? {
        view.applyChanges(view.computeDocumentChanges(changed), targetUpdate: current.map { ViewTargetUpdate(current: $0) }).snapshot
    }

    @Test("an empty from-cache first snapshot waits while the client may be online, and comes once offline")
    func gatesEmptyFirstSnapshot() throws {
        let recorder = Recorder()
        let listener = recorder.listener()
        let view = View(query: F.rooms, remoteKeys: [])
        #expect(!listener.onViewSnapshot(try #require(snapshot(view, [:]))))
        #expect(recorder.snapshots.isEmpty)
        #expect(!listener.onOnlineStateChanged(.online))
        #expect(listener.onOnlineStateChanged(.offline))
        #expect(recorder.snapshots.count == 1)
        #expect(recorder.snapshots[0].isFromCache)
    }

    @Test("a first snapshot with documents, or from a cache-only listener, is raised at once")
    func raisesNonEmptyOrCacheOnly() throws {
        let recorder = Recorder()
        let view = View(query: F.rooms, remoteKeys: [])
        let first = try #require(snapshot(view, F.keyed(F.document("rooms/a"))))
        #expect(recorder.listener().onViewSnapshot(first))
        let empty = try #require(snapshot(View(query: F.rooms, remoteKeys: []), [:]))
        #expect(recorder.listener(ListenOptions(source: .cache)).onViewSnapshot(empty))
        #expect(recorder.snapshots.count == 2)
        #expect(recorder.snapshots[0].documentChanges.map(\.kind) == [.added])
    }

    @Test("waitForSyncWhenOnline holds a from-cache snapshot with documents until offline")
    func waitForSync() throws {
        let recorder = Recorder()
        let listener = recorder.listener(ListenOptions(waitForSyncWhenOnline: true))
        let view = View(query: F.rooms, remoteKeys: [])
        #expect(!listener.onViewSnapshot(try #require(snapshot(view, F.keyed(F.document("rooms/a"))))))
        #expect(listener.onOnlineStateChanged(.offline))
        #expect(recorder.snapshots.count == 1)
    }

    @Test("metadata-only changes reach only listeners that ask for them")
    func metadataFiltering() throws {
        let plain = Recorder()
        let metadata = Recorder()
        let listeners = [plain.listener(), metadata.listener(.includingMetadataChanges(true))]
        let view = View(query: F.rooms, remoteKeys: [])
        let first = try #require(snapshot(view, F.keyed(F.document("rooms/a", local: true))))
        for listener in listeners { listener.onViewSnapshot(first) }
        let acked = try #require(snapshot(view, F.keyed(F.document("rooms/a"))))
        #expect(!listeners[0].onViewSnapshot(acked))
        #expect(listeners[1].onViewSnapshot(acked))
        #expect(plain.snapshots.count == 1)
        #expect(metadata.snapshots.count == 2)
        #expect(metadata.snapshots[1].documentChanges.map(\.kind) == [.metadata])
        #expect(!metadata.snapshots[1].hasPendingWrites)
    }

    @Test("a snapshot that only changes isFromCache is raised only with query metadata changes")
    func syncStateOnly() throws {
        let plain = Recorder()
        let metadata = Recorder()
        let listeners = [plain.listener(), metadata.listener(.includingMetadataChanges(true))]
        let view = View(query: F.rooms, remoteKeys: [F.key("rooms/a")])
        let first = try #require(snapshot(view, F.keyed(F.document("rooms/a"))))
        for listener in listeners { listener.onViewSnapshot(first) }
        let synced = try #require(snapshot(view, [:], current: true))
        #expect(!synced.isFromCache)
        #expect(!listeners[0].onViewSnapshot(synced))
        #expect(listeners[1].onViewSnapshot(synced))
        #expect(metadata.snapshots.last?.isFromCache == false)
    }
}
