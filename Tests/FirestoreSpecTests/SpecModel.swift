import CairnModel
import CairnLocalStore

@testable import CairnCore

/// One Firestore spec test, typed (see `README.md` in this folder and `../shared/reference/spec-tests.md` §3).
struct SpecTest: Sendable {
    /// The file it came from, e.g. `listen_spec_test.json`.
    var fileName: String
    var describeName: String
    var itName: String
    var comment: String?
    var tags: Set<String>
    var config: SpecConfig
    /// Empty when ``problem`` is set.
    var steps: [SpecStep]
    /// Why the steps could not be read (naming the step and field), nil when they were: the test fails with it
    /// when it applies, and nothing else fails.
    var problem: SpecFormatError?

    /// `describeName + " " + itName`, the name harnesses filter on.
    var fullName: String { "\(describeName) \(itName)" }
}

struct SpecConfig: Sendable, Hashable {
    var numClients: Int
    var useEagerGCForMemory: Bool
    /// `nil` means unlimited.
    var maxConcurrentLimboResolutions: Int?
}

/// One step: an action and what must hold after it ran.
struct SpecStep: Sendable {
    var action: SpecAction
    /// Multi-client tests only.
    var clientIndex: Int?
    /// `nil` when absent: then no snapshot event may be raised (same as an empty list).
    var expectedSnapshotEvents: [SpecSnapshotEvent]?
    var expectedState: SpecExpectedState?
    /// Missing means 0.
    var expectedSnapshotsInSyncEvents: Int
    /// Missing means 0.
    var expectedWaitForPendingWritesEvents: Int
}

/// What a listen step asks for (`userListen.options`).
struct SpecListenOptions: Sendable, Hashable {
    /// `source: "cache"`.
    var sourceIsCache = false
    var includeMetadataChanges: Bool?
    var waitForSyncWhenOnline: Bool?
}

/// Which delayed operations a `runTimer` step runs.
enum SpecTimer: Sendable, Hashable {
    /// `"all"`: every delayed operation.
    case all
    case timer(TimerID)
}

/// The action of a step (§4). Writes carry the ``Mutation`` the harness writes (§7.4); watch steps carry the
/// watch changes to deliver through ``MockDatastore/deliverWatchChange(_:snapshotVersion:)`` (see ``watchChanges``).
enum SpecAction: Sendable {
    case userListen(targetID: Int32, query: CairnModel.Query, options: SpecListenOptions)
    /// The target id in the JSON is ignored by harnesses: listeners are found by query.
    case userUnlisten(targetID: Int32, query: CairnModel.Query)
    /// A set with no precondition.
    case userSet(Mutation)
    /// A patch with `exists(true)`; the mask is the JSON's top-level keys read as field paths, `<DELETE>` deletes.
    case userPatch(Mutation)
    case userDelete(Mutation)
    case watchAck(targetIDs: [Int32])
    case watchCurrent(targetIDs: [Int32], resumeToken: [UInt8])
    case watchReset(targetIDs: [Int32])
    case watchRemove(targetIDs: [Int32], cause: FirestoreErrorCode?)
    /// Documents (each sent as its own change) or, with no documents, a bare key.
    case watchEntity(SpecWatchEntity)
    /// An existence filter: `count` is the number of keys. An undecodable bitmap is treated as no bloom filter.
    case watchFilter(targetIDs: [Int32], keys: [DocumentKey], bloomFilter: BloomFilterParameters?)
    case watchSnapshot(version: CairnModel.Timestamp, targetIDs: [Int32], resumeToken: [UInt8])
    case watchStreamClose(error: FirestoreErrorCode, runBackoffTimer: Bool)
    case writeAck(version: CairnModel.Timestamp, keepInQueue: Bool)
    case failWrite(error: FirestoreErrorCode, keepInQueue: Bool)
    case enableNetwork(Bool)
    case runTimer(SpecTimer)
    /// `nil` is the unauthenticated user.
    case changeUser(String?)
    case restart
    case triggerLruGC(thresholdBytes: Int64)
    case loadBundle(String)
    case waitForPendingWrites
    case addSnapshotsInSyncListener
    case removeSnapshotsInSyncListener
    case drainQueue
    case shutdown
    /// Steps only the skipped tests use (`failDatabase`, `applyClientState`, `setIndexConfiguration`): kept by name
    /// so a runner can fail them clearly.
    case unsupported(kind: String)
}

/// The payload of a `watchEntity` step.
struct SpecWatchEntity: Sendable {
    /// Found documents or, for a `null` value, `noDocument` tombstones.
    var documents: [Document]
    /// The `key` form: a change with no document.
    var key: DocumentKey?
    var targets: [Int32]
    var removedTargets: [Int32]
}

/// An expected snapshot event (§5).
struct SpecSnapshotEvent: Sendable {
    var query: CairnModel.Query
    /// 0 for a snapshot; otherwise the listener must get an error with this code and nothing else is compared.
    var errorCode: Int
    var fromCache: Bool
    var hasPendingWrites: Bool
    var added: [Document]
    var removed: [Document]
    var modified: [Document]
    var metadata: [Document]
}

/// The `expectedState` of a step (§5). A `nil` field was absent; `activeTargets`, `activeLimboDocs` and
/// `enqueuedLimboDocs` then keep their remembered values (§7.5).
struct SpecExpectedState: Sendable {
    var activeTargets: [Int32: SpecActiveTarget]?
    var activeLimboDocs: Set<DocumentKey>?
    var enqueuedLimboDocs: Set<DocumentKey>?
    var userCallbacks: SpecUserCallbacks?
    var numOutstandingWrites: Int?
    var writeStreamRequestCount: Int?
    var watchStreamRequestCount: Int?
    /// Multi-client only.
    var isPrimary: Bool?
}

/// An expected active target on the watch stream.
struct SpecActiveTarget: Sendable {
    /// Usually one; harnesses check only the first.
    var queries: [CairnModel.Query]
    var resumeToken: [UInt8]
    var purpose: TargetData.Purpose
    var readTime: CairnModel.Timestamp?
    var expectedCount: Int?
}

struct SpecUserCallbacks: Sendable, Hashable {
    var acknowledgedDocs: [DocumentKey]
    var rejectedDocs: [DocumentKey]
}

extension SpecAction {
    /// The watch changes the step delivers, each with the snapshot version to pass along (§7.4): only
    /// `watchSnapshot` carries a version; every other change goes with `TargetData.noSnapshotVersion`. `nil` for
    /// steps that are not watch messages.
    var watchChanges: [(change: WatchChange, snapshotVersion: CairnModel.Timestamp)]? {
        let none = TargetData.noSnapshotVersion
        switch self {
        case let .watchAck(ids):
            return [(.targetChange(state: .added, targetIDs: ids, resumeToken: [], cause: nil), none)]
        case let .watchCurrent(ids, token):
            return [(.targetChange(state: .current, targetIDs: ids, resumeToken: token, cause: nil), none)]
        case let .watchReset(ids):
            return [(.targetChange(state: .reset, targetIDs: ids, resumeToken: [], cause: nil), none)]
        case let .watchRemove(ids, cause):
            return [(.targetChange(state: .removed, targetIDs: ids, resumeToken: [], cause: cause), none)]
        case let .watchSnapshot(version, ids, token):
            return [(.targetChange(state: .noChange, targetIDs: ids, resumeToken: token, cause: nil), version)]
        case let .watchFilter(ids, keys, bloom):
            return ids.prefix(1).map { (.existenceFilter(targetID: $0, count: keys.count, bloomFilter: bloom), none) }
        case let .watchEntity(entity):
            if let key = entity.key {
                return [
                    (.documentChange(updatedTargetIDs: [], removedTargetIDs: entity.removedTargets, key: key, document: nil), none)
                ]
            }
            return entity.documents.map { document in
                (.documentChange(
                    updatedTargetIDs: entity.targets, removedTargetIDs: entity.removedTargets, key: document.key,
                    document: document), none)
            }
        default:
            return nil
        }
    }
}
