import CairnModel
import CairnLocalStore
import CairnLogging

/// The bookkeeping of documents in limbo (Firebase's `SyncEngine` limbo maps and `ReferenceSet`): which views
/// hold which limbo documents, the resolutions waiting for a slot, and the active ones with their targets.
package struct LimboResolutions {
    package struct Resolution {
        package var key: DocumentKey
        /// True once the limbo target delivered the document (so its remote keys are that document).
        package var receivedDocument = false
    }

    package let maxConcurrent: Int
    /// The limbo documents each view target holds.
    package private(set) var referencesByTarget: [Int32: Set<DocumentKey>] = [:]
    package private(set) var enqueued: [DocumentKey] = []
    package private(set) var activeTargetsByKey: [DocumentKey: Int32] = [:]
    package private(set) var activeResolutionsByTarget: [Int32: Resolution] = [:]
    /// Limbo targets take odd ids (1, 3, 5, …), as Firebase's sync-engine target id generator.
    private var nextTargetID: Int32 = 1

    package init(maxConcurrent: Int) {
        self.maxConcurrent = maxConcurrent
    }

    package mutating func addReference(_ key: DocumentKey, target: Int32) {
        referencesByTarget[target, default: []].insert(key)
    }

    package mutating func removeReference(_ key: DocumentKey, target: Int32) {
        referencesByTarget[target]?.remove(key)
        if referencesByTarget[target]?.isEmpty == true { referencesByTarget[target] = nil }
    }

    /// Removes every reference of `target`; returns the keys it referenced.
    package mutating func removeReferences(of target: Int32) -> Set<DocumentKey> {
        referencesByTarget.removeValue(forKey: target) ?? []
    }

    package func isReferenced(_ key: DocumentKey) -> Bool {
        referencesByTarget.values.contains { $0.contains(key) }
    }

    /// Queues a resolution for `key` unless one is queued or running; returns whether it was queued.
    package mutating func enqueue(_ key: DocumentKey) -> Bool {
        guard activeTargetsByKey[key] == nil, !enqueued.contains(key) else { return false }
        enqueued.append(key)
        return true
    }

    /// Starts the next queued resolution when a slot is free; returns its key and new target id.
    package mutating func startNext() -> (key: DocumentKey, targetID: Int32)? {
        guard !enqueued.isEmpty, activeTargetsByKey.count < maxConcurrent else { return nil }
        let key = enqueued.removeFirst()
        let targetID = nextTargetID
        nextTargetID += 2
        activeResolutionsByTarget[targetID] = Resolution(key: key)
        activeTargetsByKey[key] = targetID
        return (key, targetID)
    }

    /// Stops tracking `key`: dequeued, and its active target (returned, to stop listening) forgotten.
    package mutating func remove(_ key: DocumentKey) -> Int32? {
        enqueued.removeAll { $0 == key }
        guard let targetID = activeTargetsByKey.removeValue(forKey: key) else { return nil }
        activeResolutionsByTarget[targetID] = nil
        return targetID
    }

    /// Forgets the resolution whose listen the server rejected; returns its key, or nil for a view target.
    package mutating func rejectResolution(_ targetID: Int32) -> DocumentKey? {
        guard let resolution = activeResolutionsByTarget.removeValue(forKey: targetID) else { return nil }
        activeTargetsByKey[resolution.key] = nil
        return resolution.key
    }

    /// Records whether a limbo target's change delivered or removed its document.
    package mutating func noteTargetChange(_ targetID: Int32, _ change: TargetChange) {
        guard activeResolutionsByTarget[targetID] != nil else { return }
        if !change.added.isEmpty {
            activeResolutionsByTarget[targetID]?.receivedDocument = true
        } else if !change.removed.isEmpty {
            activeResolutionsByTarget[targetID]?.receivedDocument = false
        }
    }

    package func receivedDocumentKey(_ targetID: Int32) -> DocumentKey? {
        guard let resolution = activeResolutionsByTarget[targetID], resolution.receivedDocument else { return nil }
        return resolution.key
    }
}

extension SyncEngine {
    /// Follows the limbo changes of a view: new limbo documents get a resolution, documents no view holds in
    /// limbo any more lose theirs.
    package func updateTrackedLimboDocuments(_ changes: [LimboDocumentChange], targetID: Int32) {
        for change in changes {
            switch change.kind {
            case .added:
                limbo.addReference(change.key, target: targetID)
                if limbo.enqueue(change.key) { pumpEnqueuedLimboResolutions() }
            case .removed:
                limbo.removeReference(change.key, target: targetID)
                if !limbo.isReferenced(change.key) { removeLimboTarget(change.key) }
            }
        }
    }

    /// Starts queued resolutions while fewer than `maxConcurrentLimboResolutions` run.
    package func pumpEnqueuedLimboResolutions() {
        while let (key, targetID) = limbo.startNext() {
            CairnLogger.firestoreSync.debug("limbo resolution of \(key) started (target \(targetID))")
            let query = Query(path: key.path)
            remoteStore.listen(TargetData(targetID: targetID, query: query, purpose: .limboResolution))
        }
    }

    package func removeLimboTarget(_ key: DocumentKey) {
        guard let targetID = limbo.remove(key) else { return }
        CairnLogger.firestoreSync.debug("limbo resolution of \(key) ended (target \(targetID))")
        stopListeningRemotely(targetID)
        pumpEnqueuedLimboResolutions()
    }

    /// The documents in limbo with an active resolution, and their targets (for tests and the spec runner).
    package var activeLimboDocuments: [DocumentKey: Int32] { limbo.activeTargetsByKey }

    /// The documents in limbo waiting for a resolution slot, in order.
    package var enqueuedLimboDocuments: [DocumentKey] { limbo.enqueued }
}
