import CairnDatabaseCore
import Testing

/// A listen provider that records calls and keeps the completion callbacks.
private final class RecordingProvider: ListenProvider {
    var started: [(query: QuerySpec, tag: Int?)] = []
    var stopped: [(query: QuerySpec, tag: Int?)] = []
    var hashes: [() -> String] = []
    var completions: [(ListenStatus) -> [DatabaseEvent]] = []

    func startListening(_ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [DatabaseEvent]) -> [DatabaseEvent] {
        started.append((query, tag))
        hashes.append(hash)
        completions.append(onComplete)
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {
        stopped.append((query, tag))
    }
}

private final class Listener: EventRegistration {
    let cancels: Bool
    init(cancels: Bool = false) { self.cancels = cancels }
    func responds(to type: EventType) -> Bool { true }
    func matches(_ other: any EventRegistration) -> Bool { other === self }
    var hasAnyCallback: Bool { true }
    var wantsCancelEvents: Bool { cancels }
}

private func types(_ events: [DatabaseEvent]) -> [String] {
    events.map { event in
        switch event {
        case .data(let data): data.type.rawValue + (data.childKey.map { ":" + $0 } ?? "")
        case .cancel: "cancel"
        }
    }
}

@Suite("Sync tree")
struct SyncTreeTests {
    @Test("a default listen starts one untagged listen; `ok` on empty data raises a null value")
    func listenCompleteOnEmptyData() throws {
        let provider = RecordingProvider()
        let tree = SyncTree(listenProvider: provider)
        let query = QuerySpec(path: try DatabasePath("a"))
        #expect(tree.addEventRegistration(Listener(), for: query).isEmpty)
        #expect(provider.started.count == 1)
        #expect(provider.started[0].tag == nil)
        let events = provider.completions[0](.ok)
        #expect(types(events) == ["value"])
        if case .data(let data)? = events.first { #expect(data.node.isEmpty) }
    }

    @Test("filtered queries get tags from 1 and listen with them; a load-all ordered query listens as the default")
    func tags() throws {
        let provider = RecordingProvider()
        let tree = SyncTree(listenProvider: provider)
        let limited = QuerySpec(path: try DatabasePath("a"), params: try QueryParams().limited(toFirst: 2))
        let ordered = QuerySpec(path: try DatabasePath("b"), params: try QueryParams().orderedBy(.value))
        _ = tree.addEventRegistration(Listener(), for: limited)
        _ = tree.addEventRegistration(Listener(), for: ordered)
        #expect(provider.started.map(\.tag) == [1, nil])
        #expect(provider.started[1].query.params.isDefault)
        #expect(tree.tag(for: limited) == 1)
        #expect(tree.applyTaggedQueryOverwrite(try DatabasePath("a"), try Node(json: .object(["x": .int(1)])), tag: 7).isEmpty)
        #expect(types(tree.applyTaggedQueryOverwrite(try DatabasePath("a"), try Node(json: .object(["x": .int(1)])), tag: 1)) == ["child_added:x", "value"])
    }

    @Test("a failed listen cancels the registrations that want it and sends no unlisten")
    func failedListen() throws {
        let provider = RecordingProvider()
        let tree = SyncTree(listenProvider: provider)
        let query = QuerySpec(path: try DatabasePath("secret"))
        _ = tree.addEventRegistration(Listener(cancels: true), for: query)
        _ = tree.addEventRegistration(Listener(cancels: false), for: query)
        let events = provider.completions[0](.failed("permission_denied"))
        #expect(types(events) == ["cancel"])
        if case .cancel(let cancel)? = events.first {
            #expect(cancel.error.code == .listenFailed)
            #expect(cancel.error.message.contains("permission_denied"))
        }
        #expect(provider.stopped.isEmpty)
        #expect(tree.applyServerOverwrite(try DatabasePath("secret"), try Node(json: .int(1))).isEmpty)
    }

    @Test("a default listen above stops the listens below it and restarts them when it goes")
    func shadowing() throws {
        let provider = RecordingProvider()
        let tree = SyncTree(listenProvider: provider)
        let child = QuerySpec(path: try DatabasePath("a/b"), params: try QueryParams().limited(toLast: 1))
        let parent = QuerySpec(path: try DatabasePath("a"))
        let parentListener = Listener()
        _ = tree.addEventRegistration(Listener(), for: child)
        _ = tree.addEventRegistration(parentListener, for: parent)
        #expect(provider.stopped.map(\.tag) == [1])
        _ = tree.removeEventRegistration(parentListener, for: parent)
        #expect(provider.started.map(\.tag) == [1, nil, 1])
        #expect(provider.stopped.map(\.query.path.description) == ["/a/b", "/a"])
    }

    @Test("the listen's hash is the hash of the view's server cache")
    func listenHash() throws {
        let provider = RecordingProvider()
        let tree = SyncTree(listenProvider: provider)
        let path = try DatabasePath("a")
        _ = tree.addEventRegistration(Listener(), for: QuerySpec(path: path))
        #expect(provider.hashes[0]() == "")
        let data = try Node(json: .object(["x": .string("y")]))
        _ = tree.applyServerOverwrite(path, data)
        #expect(provider.hashes[0]() == data.hash)
    }

    @Test("the complete local value (null without data) includes hidden writes and leaves out excluded ones")
    func completeEventCache() throws {
        let tree = SyncTree(listenProvider: RecordingProvider())
        let path = try DatabasePath("counter")
        #expect(tree.calcCompleteEventCache(path)?.isEmpty == true)
        _ = tree.applyUserOverwrite(path, try Node(json: .int(1)), writeId: 0)
        #expect(tree.applyUserOverwrite(path, try Node(json: .int(2)), writeId: 1, visible: false).isEmpty)
        #expect(tree.calcCompleteEventCache(path)?.leafValue == .int(2))
        #expect(tree.calcCompleteEventCache(path, excluding: [1])?.leafValue == .int(1))
    }

    @Test("a rejected write reverts to the server's data; acking an unknown write does nothing")
    func revert() throws {
        let tree = SyncTree(listenProvider: RecordingProvider())
        let path = try DatabasePath("a")
        _ = tree.addEventRegistration(Listener(), for: QuerySpec(path: path))
        _ = tree.applyServerOverwrite(path, try Node(json: .object(["x": .int(1)])))
        #expect(types(tree.applyUserOverwrite(path.child("y"), try Node(json: .int(2)), writeId: 0)) == ["child_added:y", "value"])
        #expect(types(tree.ackUserWrite(0, revert: true)) == ["child_removed:y", "value"])
        #expect(tree.ackUserWrite(42).isEmpty)
    }
}
