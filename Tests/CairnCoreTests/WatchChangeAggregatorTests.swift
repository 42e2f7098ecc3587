import CairnCoreTestSupport
import CairnModel
import Foundation
import CairnLocalStore
import Testing

@testable import CairnCore

/// Targets and their cached keys, as the RemoteStore and SyncEngine would report them.
private final class FakeTargetMetadata: TargetMetadataProvider {
    var targets: [Int32: TargetData] = [:]
    var keys: [Int32: Set<DocumentKey>] = [:]
    let databaseID = DatabaseID(projectID: "test-project")

    func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey> { keys[targetID] ?? [] }
    func targetData(forTarget targetID: Int32) -> TargetData? { targets[targetID] }
}

private func key(_ path: String) -> DocumentKey { try! DocumentKey(parsing: path) }
private func version(_ micros: Int64) -> CairnModel.Timestamp {
    CairnModel.Timestamp(seconds: micros / 1_000_000, nanoseconds: Int32(micros % 1_000_000) * 1000)
}
private func found(_ path: String, _ micros: Int64 = 1000) -> Document {
    Document(key: key(path), state: .found, version: version(micros), data: ObjectValue(["v": .integer(1)]))
}
private func bloom(_ base64: String, padding: Int, hashCount: Int) -> BloomFilterParameters {
    BloomFilterParameters(bitmap: Array(Data(base64Encoded: base64)!), padding: padding, hashCount: hashCount)
}

@Suite("WatchChangeAggregator")
struct WatchChangeAggregatorTests {
    private let metadata = FakeTargetMetadata()
    private let aggregator: WatchChangeAggregator

    init() {
        aggregator = WatchChangeAggregator(metadata: metadata)
    }

    /// Listens to `path` as `targetID` and acknowledges it, as the RemoteStore would.
    private func listen(_ targetID: Int32, _ path: String, purpose: TargetData.Purpose = .listen, keys: [String] = []) {
        metadata.targets[targetID] = TargetData(
            targetID: targetID, query: CairnModel.Query(path: try! ResourcePath(parsing: path)), purpose: purpose)
        metadata.keys[targetID] = Set(keys.map(key))
        aggregator.recordPendingTargetRequest(targetID)
        aggregator.handleTargetChange(state: .added, targetIDs: [targetID], resumeToken: [], cause: nil)
    }

    private func send(_ doc: Document, to targets: [Int32], removedFrom removed: [Int32] = []) {
        aggregator.handleDocumentChange(updatedTargetIDs: targets, removedTargetIDs: removed, key: doc.key, document: doc)
    }

    @Test("changes for a target whose ADD has not arrived are ignored")
    func pendingTargetsIgnoreChanges() {
        metadata.targets[2] = TargetData(targetID: 2, query: CairnModel.Query(path: try! ResourcePath(parsing: "c")))
        aggregator.recordPendingTargetRequest(2)
        send(found("c/a"), to: [2])
        aggregator.handleTargetChange(state: .current, targetIDs: [2], resumeToken: Array("t1".utf8), cause: nil)
        let early = aggregator.createRemoteEvent(at: version(1000))
        #expect(early.targetChanges.isEmpty && early.documentUpdates.isEmpty)

        aggregator.handleTargetChange(state: .added, targetIDs: [2], resumeToken: [], cause: nil)
        send(found("c/a"), to: [2])
        let event = aggregator.createRemoteEvent(at: version(2000))
        #expect(event.targetChanges[2]?.added == [key("c/a")])
        #expect(event.targetChanges[2]?.current == false)
        #expect(event.documentUpdates[key("c/a")]?.readTime == version(2000))
    }

    @Test("resume tokens: CURRENT marks the target current; a global no-change updates every active target; an empty token keeps the old one")
    func resumeTokensAndCurrent() {
        listen(2, "c")
        listen(4, "d")
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleTargetChange(state: .current, targetIDs: [2], resumeToken: Array("t-1000".utf8), cause: nil)
        let first = aggregator.createRemoteEvent(at: version(1000))
        #expect(first.targetChanges[2] == TargetChange(resumeToken: Array("t-1000".utf8), current: true))
        #expect(first.targetChanges[4] == nil)

        aggregator.handleTargetChange(state: .noChange, targetIDs: [], resumeToken: Array("t-2000".utf8), cause: nil)
        let second = aggregator.createRemoteEvent(at: version(2000))
        #expect(second.targetChanges[2]?.resumeToken == Array("t-2000".utf8))
        #expect(second.targetChanges[4]?.resumeToken == Array("t-2000".utf8))
        #expect(second.targetChanges[4]?.current == false)

        aggregator.handleTargetChange(state: .noChange, targetIDs: [2], resumeToken: [], cause: nil)
        let third = aggregator.createRemoteEvent(at: version(3000))
        #expect(third.targetChanges.isEmpty)
    }

    @Test("documents already in the target are modified; removals of unknown documents vanish; deletes are kept")
    func addedModifiedRemoved() {
        listen(2, "c", keys: ["c/a", "c/b"])
        send(found("c/a", 2000), to: [2])
        send(found("c/new"), to: [2])
        aggregator.handleDocumentChange(updatedTargetIDs: [], removedTargetIDs: [2], key: key("c/b"), document: nil)
        send(found("c/brief"), to: [2])
        aggregator.handleDocumentChange(updatedTargetIDs: [], removedTargetIDs: [2], key: key("c/brief"), document: nil)
        let deleted = Document(key: key("c/gone"), state: .noDocument, version: version(2000))
        aggregator.handleDocumentChange(updatedTargetIDs: [2], removedTargetIDs: [], key: deleted.key, document: deleted)
        let change = aggregator.createRemoteEvent(at: version(2000)).targetChanges[2]
        #expect(change?.modified == [key("c/a")])
        #expect(change?.added == [key("c/new")])
        #expect(change?.removed == [key("c/b")])
    }

    @Test("RESET removes every cached document; documents sent again come back as modified")
    func reset() {
        listen(2, "c", keys: ["c/a", "c/b"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleTargetChange(state: .reset, targetIDs: [2], resumeToken: [], cause: nil)
        send(found("c/a", 2000), to: [2])
        let change = aggregator.createRemoteEvent(at: version(2000)).targetChanges[2]
        #expect(change?.removed == [key("c/b")])
        #expect(change?.modified == [key("c/a")])
        #expect(change?.current == false)
    }

    @Test("REMOVE answered for a target ends it; later messages for it are ignored")
    func removedTarget() {
        listen(2, "c", keys: ["c/a"])
        aggregator.recordPendingTargetRequest(2)
        metadata.targets[2] = nil
        aggregator.handleTargetChange(state: .removed, targetIDs: [2], resumeToken: [], cause: nil)
        send(found("c/a"), to: [2])
        let event = aggregator.createRemoteEvent(at: version(1000))
        #expect(event.targetChanges.isEmpty && event.documentUpdates.isEmpty)
    }

    @Test("existence filter matching the count changes nothing")
    func matchingFilter() {
        listen(2, "collection", keys: ["collection/a", "collection/b"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleExistenceFilter(targetID: 2, count: 2, bloomFilter: nil)
        let event = aggregator.createRemoteEvent(at: version(1000))
        #expect(event.targetMismatches.isEmpty && event.targetChanges.isEmpty)
    }

    @Test("existence filter mismatch without bloom filter: reset, full re-query purpose")
    func mismatchWithoutBloom() {
        listen(2, "collection", keys: ["collection/a", "collection/b"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleExistenceFilter(targetID: 2, count: 1, bloomFilter: nil)
        let event = aggregator.createRemoteEvent(at: version(2000))
        #expect(event.targetMismatches == [2: .existenceFilterMismatch])
        #expect(event.targetChanges[2]?.removed == [key("collection/a"), key("collection/b")])
    }

    @Test("existence filter mismatch with a bloom filter: only documents missing from it are removed")
    func mismatchResolvedByBloom() {
        listen(2, "collection", keys: ["collection/a", "collection/b"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleExistenceFilter(
            targetID: 2, count: 1, bloomFilter: bloom("AhAAApAAAIAEBIAABA==", padding: 4, hashCount: 10))
        let event = aggregator.createRemoteEvent(at: version(2000))
        #expect(event.targetMismatches.isEmpty)
        #expect(event.targetChanges[2]?.removed == [key("collection/b")])
        #expect(event.documentUpdates.isEmpty)
    }

    @Test("existence filter mismatch whose bloom filter has a false positive: reset with the bloom purpose")
    func bloomFalsePositive() {
        listen(2, "collection", keys: ["collection/a", "collection/b"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleExistenceFilter(
            targetID: 2, count: 1, bloomFilter: bloom("AxBIApBIAIAWBoCQBA==", padding: 4, hashCount: 10))
        let event = aggregator.createRemoteEvent(at: version(2000))
        #expect(event.targetMismatches == [2: .existenceFilterMismatchBloom])
        #expect(event.targetChanges[2]?.removed == [key("collection/a"), key("collection/b")])
    }

    @Test("an invalid or empty bloom filter falls back to a full re-query", arguments: [
        BloomFilterParameters(bitmap: [0x02, 0x10], padding: 4, hashCount: -1),
        BloomFilterParameters(bitmap: [], padding: 0, hashCount: 0),
    ])
    func unusableBloom(_ parameters: BloomFilterParameters) {
        listen(2, "collection", keys: ["collection/a", "collection/b"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleExistenceFilter(targetID: 2, count: 1, bloomFilter: parameters)
        #expect(aggregator.createRemoteEvent(at: version(2000)).targetMismatches == [2: .existenceFilterMismatch])
    }

    @Test("document targets: a filter count of 0 deletes the document; a current target without it synthesizes the delete")
    func documentTargets() {
        listen(1, "collection/a", purpose: .limboResolution, keys: ["collection/a"])
        _ = aggregator.createRemoteEvent(at: version(500))
        aggregator.handleExistenceFilter(targetID: 1, count: 0, bloomFilter: nil)
        let filtered = aggregator.createRemoteEvent(at: version(1000))
        #expect(filtered.documentUpdates[key("collection/a")]?.state == .noDocument)
        #expect(filtered.targetChanges[1]?.removed == [key("collection/a")])

        listen(3, "collection/b", purpose: .limboResolution)
        aggregator.handleTargetChange(state: .current, targetIDs: [3], resumeToken: Array("t".utf8), cause: nil)
        let event = aggregator.createRemoteEvent(at: version(2000))
        let tombstone = event.documentUpdates[key("collection/b")]
        #expect(tombstone?.state == .noDocument && tombstone?.version == version(2000))
        #expect(event.resolvedLimboDocuments == [key("collection/b")])
    }

    @Test("limbo resolution: documents seen only by limbo targets are resolved limbo documents")
    func resolvedLimbo() {
        listen(2, "collection")
        listen(1, "collection/a", purpose: .limboResolution)
        send(found("collection/a"), to: [1])
        send(found("collection/b"), to: [1, 2])
        let event = aggregator.createRemoteEvent(at: version(1000))
        #expect(event.resolvedLimboDocuments == [key("collection/a")])
        #expect(Set(event.documentUpdates.keys) == [key("collection/a"), key("collection/b")])
    }
}
