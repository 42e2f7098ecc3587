import CairnModel
import CairnLocalStore

/// What the ``WatchChangeAggregator`` needs to know about targets (Firebase's `TargetMetadataProvider`; the
/// ``RemoteStore`` provides it).
package protocol TargetMetadataProvider: AnyObject {
    /// The keys the target had at its last consistent snapshot.
    func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey>
    /// The target the client listens to under `targetID`, `nil` when it stopped listening.
    func targetData(forTarget targetID: Int32) -> TargetData?
    /// The database whose resource names bloom filters hash.
    var databaseID: DatabaseID { get }
}

/// Accumulates watch-stream changes until the server announces a consistent snapshot, then turns them into one
/// ``RemoteEvent`` (Firebase's `WatchChangeAggregator`).
///
/// Per target it tracks the unanswered watch/unwatch requests (messages about a pending target are ignored), the
/// resume token, whether the target is current, and the documents added, modified or removed since the last
/// snapshot. Existence filters whose count disagrees with the cache first try the bloom filter to find the
/// removed documents; if that fails the target is reset and reported in ``RemoteEvent/targetMismatches``.
///
/// ```swift
/// let aggregator = WatchChangeAggregator(metadata: remoteStore)
/// aggregator.recordPendingTargetRequest(2)
/// aggregator.handleTargetChange(state: .added, targetIDs: [2], resumeToken: [], cause: nil)
/// aggregator.handleDocumentChange(updatedTargetIDs: [2], removedTargetIDs: [], key: key, document: doc)
/// aggregator.handleTargetChange(state: .current, targetIDs: [2], resumeToken: token, cause: nil)
/// let event = aggregator.createRemoteEvent(at: version)   // added: [key], current, token
/// ```
package final class WatchChangeAggregator {
    private unowned let metadata: any TargetMetadataProvider
    private var targetStates: [Int32: TargetState] = [:]
    /// Documents changed since the last event, by key.
    private var pendingDocumentUpdates: [DocumentKey: Document] = [:]
    /// For each changed document, the targets the change was reported for.
    private var pendingDocumentTargetMapping: [DocumentKey: Set<Int32>] = [:]
    /// Targets an existence filter proved inconsistent, with the purpose of the re-listen.
    private var pendingTargetResets: [Int32: TargetData.Purpose] = [:]

    package init(metadata: any TargetMetadataProvider) {
        self.metadata = metadata
    }

    /// Applies any watch change.
    package func handle(_ change: WatchChange) {
        switch change {
        case let .documentChange(updated, removed, key, document):
            handleDocumentChange(updatedTargetIDs: updated, removedTargetIDs: removed, key: key, document: document)
        case let .targetChange(state, targetIDs, resumeToken, cause):
            handleTargetChange(state: state, targetIDs: targetIDs, resumeToken: resumeToken, cause: cause)
        case let .existenceFilter(targetID, count, bloomFilter):
            handleExistenceFilter(targetID: targetID, count: count, bloomFilter: bloomFilter)
        }
    }

    /// A document now matches `updatedTargetIDs` (or was deleted) and no longer matches `removedTargetIDs`.
    package func handleDocumentChange(updatedTargetIDs: [Int32], removedTargetIDs: [Int32], key: DocumentKey, document: Document?) {
        for targetID in updatedTargetIDs {
            guard let document else { continue }
            if document.exists {
                addDocument(document, toTarget: targetID)
            } else {
                removeDocument(key, fromTarget: targetID, update: document)
            }
        }
        for targetID in removedTargetIDs {
            removeDocument(key, fromTarget: targetID, update: document)
        }
    }

    /// A target change; empty `targetIDs` means every target the aggregator knows. Errored removals (a `cause`)
    /// are the ``RemoteStore``'s to handle and must not arrive here.
    package func handleTargetChange(state: WatchTargetChangeState, targetIDs: [Int32], resumeToken: [UInt8], cause: FirestoreErrorCode?) {
        precondition(state != .removed || cause == nil, "An errored target removal reached the WatchChangeAggregator.")
        let ids = targetIDs.isEmpty ? Array(targetStates.keys) : targetIDs
        for targetID in ids {
            var targetState = targetStates[targetID] ?? TargetState()
            switch state {
            case .noChange:
                if isActiveTarget(targetID) { targetState.updateResumeToken(resumeToken) }
            case .added:
                targetState.recordTargetResponse()
                // A target added back (e.g. after an existence-filter mismatch) starts over.
                if !targetState.isPending { targetState.clearPendingChanges() }
                targetState.updateResumeToken(resumeToken)
            case .removed:
                targetState.recordTargetResponse()
                if !targetState.isPending {
                    targetStates[targetID] = nil
                    continue
                }
            case .current:
                if isActiveTarget(targetID) {
                    targetState.markCurrent()
                    targetState.updateResumeToken(resumeToken)
                }
            case .reset:
                if isActiveTarget(targetID) {
                    targetStates[targetID] = targetState
                    resetTarget(targetID)
                    targetState = targetStates[targetID]!
                    targetState.updateResumeToken(resumeToken)
                }
            }
            targetStates[targetID] = targetState
        }
    }

    /// The server's count of the target's documents, with an optional bloom filter of their names.
    package func handleExistenceFilter(targetID: Int32, count expectedCount: Int, bloomFilter: BloomFilterParameters?) {
        guard let targetData = targetDataForActiveTarget(targetID) else { return }
        let query = targetData.query
        if query.isDocumentQuery {
            // A count of 0 proves the document gone: apply the delete now so that no other query shows it.
            if expectedCount == 0 {
                let key = DocumentKey(path: query.path)
                removeDocument(
                    key, fromTarget: targetID,
                    update: Document(key: key, state: .noDocument, version: TargetData.noSnapshotVersion))
            }
            return
        }
        let currentCount = currentDocumentCount(forTarget: targetID)
        guard currentCount != expectedCount else { return }
        switch applyBloomFilter(bloomFilter, targetID: targetID, expectedCount: expectedCount, currentCount: currentCount) {
        case .success:
            break
        case .skipped:
            resetTarget(targetID)
            pendingTargetResets[targetID] = .existenceFilterMismatch
        case .falsePositive:
            resetTarget(targetID)
            pendingTargetResets[targetID] = .existenceFilterMismatchBloom
        }
    }

    /// Counts a watch or unwatch request sent for the target; its answer (ADD or REMOVE) is awaited.
    package func recordPendingTargetRequest(_ targetID: Int32) {
        targetStates[targetID, default: TargetState()].recordPendingTargetRequest()
    }

    /// Forgets a target (after the server rejected it).
    package func removeTarget(_ targetID: Int32) {
        targetStates[targetID] = nil
    }

    /// Everything since the last event, as one event at `snapshotVersion`; the pending state is cleared.
    package func createRemoteEvent(at snapshotVersion: Timestamp) -> RemoteEvent {
        var targetChanges: [Int32: TargetChange] = [:]
        for targetID in targetStates.keys.sorted() {
            guard let targetData = targetDataForActiveTarget(targetID) else { continue }
            if targetStates[targetID]!.current && targetData.query.isDocumentQuery {
                // A current document target that never saw its document: the document does not exist.
                let key = DocumentKey(path: targetData.query.path)
                if pendingDocumentUpdates[key] == nil && !targetContainsDocument(targetID, key) {
                    removeDocument(
                        key, fromTarget: targetID, update: Document(key: key, state: .noDocument, version: snapshotVersion))
                }
            }
            if targetStates[targetID]!.hasPendingChanges {
                targetChanges[targetID] = targetStates[targetID]!.targetChange
                targetStates[targetID]!.clearPendingChanges()
            }
        }

        // Documents only limbo targets reported: resolved limbo, which garbage collection treats specially.
        var resolvedLimboDocuments: Set<DocumentKey> = []
        for (key, targetIDs) in pendingDocumentTargetMapping {
            let onlyLimbo = targetIDs.allSatisfy { targetID in
                guard let data = targetDataForActiveTarget(targetID) else { return true }
                return data.purpose == .limboResolution
            }
            if onlyLimbo { resolvedLimboDocuments.insert(key) }
        }

        var documentUpdates = pendingDocumentUpdates
        for key in documentUpdates.keys { documentUpdates[key]!.readTime = snapshotVersion }
        let event = RemoteEvent(
            snapshotVersion: snapshotVersion, targetChanges: targetChanges, targetMismatches: pendingTargetResets,
            documentUpdates: documentUpdates, resolvedLimboDocuments: resolvedLimboDocuments)
        pendingDocumentUpdates.removeAll()
        pendingDocumentTargetMapping.removeAll()
        pendingTargetResets.removeAll()
        return event
    }

    // MARK: Documents and targets

    private func addDocument(_ document: Document, toTarget targetID: Int32) {
        guard isActiveTarget(targetID) else { return }
        let kind: TargetState.DocumentChangeKind = targetContainsDocument(targetID, document.key) ? .modified : .added
        targetStates[targetID, default: TargetState()].addDocumentChange(document.key, kind)
        pendingDocumentUpdates[document.key] = document
        pendingDocumentTargetMapping[document.key, default: []].insert(targetID)
    }

    /// Removes `key` from the target; `update`, when given, is the document's new state (a delete).
    private func removeDocument(_ key: DocumentKey, fromTarget targetID: Int32, update: Document?) {
        guard isActiveTarget(targetID) else { return }
        if targetContainsDocument(targetID, key) {
            targetStates[targetID, default: TargetState()].addDocumentChange(key, .removed)
        } else {
            // The document entered and left the target between two snapshots: nothing to report.
            targetStates[targetID, default: TargetState()].removeDocumentChange(key)
        }
        pendingDocumentTargetMapping[key, default: []].insert(targetID)
        if let update { pendingDocumentUpdates[key] = update }
    }

    /// Starts the target over and removes every document it had; the server re-sends those that still match.
    private func resetTarget(_ targetID: Int32) {
        precondition(!(targetStates[targetID]?.isPending ?? false), "Only active targets can be reset.")
        targetStates[targetID] = TargetState()
        for key in metadata.remoteKeys(forTarget: targetID) {
            removeDocument(key, fromTarget: targetID, update: nil)
        }
    }

    private func currentDocumentCount(forTarget targetID: Int32) -> Int {
        let change = (targetStates[targetID] ?? TargetState()).targetChange
        return metadata.remoteKeys(forTarget: targetID).count + change.added.count - change.removed.count
    }

    private func targetContainsDocument(_ targetID: Int32, _ key: DocumentKey) -> Bool {
        metadata.remoteKeys(forTarget: targetID).contains(key)
    }

    private func isActiveTarget(_ targetID: Int32) -> Bool { targetDataForActiveTarget(targetID) != nil }

    /// The target's data unless a request for it is pending or the client stopped listening.
    private func targetDataForActiveTarget(_ targetID: Int32) -> TargetData? {
        if let state = targetStates[targetID], state.isPending { return nil }
        return metadata.targetData(forTarget: targetID)
    }

    // MARK: Bloom filter

    private enum BloomFilterOutcome {
        /// The filter explained the mismatch: the documents it lacks were removed.
        case success
        /// No usable filter.
        case skipped
        /// After removing the documents it lacks the count still disagrees (a false positive hid a removal).
        case falsePositive
    }

    private func applyBloomFilter(
        _ parameters: BloomFilterParameters?, targetID: Int32, expectedCount: Int, currentCount: Int
    ) -> BloomFilterOutcome {
        guard let parameters, !parameters.bitmap.isEmpty,
            let filter = try? BloomFilter(parameters), filter.bitCount > 0
        else { return .skipped }
        var removedCount = 0
        for key in metadata.remoteKeys(forTarget: targetID).sorted()
        where !filter.mightContain(BloomFilter.memberName(of: key, in: metadata.databaseID)) {
            removeDocument(key, fromTarget: targetID, update: nil)
            removedCount += 1
        }
        return expectedCount == currentCount - removedCount ? .success : .falsePositive
    }
}
