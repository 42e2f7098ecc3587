import CairnModel
import CairnLocalStore

@testable import CairnCore

/// What a step could not do: the test fails with this message.
struct SpecStepFailure: Error, CustomStringConvertible {
    var description: String
}

/// The step kinds, as Firebase's iOS and Android harnesses run them (reference/spec-tests.md §7.4).
extension SpecDriver {
    func perform(_ action: SpecAction) throws {
        switch action {
        case let .userListen(targetID, query, options):
            try listen(targetID: targetID, query: query, options: options)
        case let .userUnlisten(_, query):
            guard let listener = listeners.removeValue(forKey: query) else {
                throw SpecStepFailure(description: "unlisten of \(query), which nobody listens to")
            }
            var failure: (any Error)?
            run { [self] in
                do { try eventManager.removeQueryListener(listener) } catch { failure = error }
            }
            if let failure { throw failure }
        case let .userSet(mutation), let .userPatch(mutation), let .userDelete(mutation):
            write(mutation)
        case .watchAck, .watchCurrent, .watchReset, .watchRemove, .watchEntity, .watchFilter, .watchSnapshot:
            for (change, version) in action.watchChanges ?? [] {
                var failure: (any Error)?
                run { [self] in
                    do { try datastore.deliverWatchChange(change, snapshotVersion: version) } catch { failure = error }
                }
                if let failure { throw failure }
            }
        case let .watchStreamClose(error, _):
            run { [self] in datastore.failWatchStream(error: error) }
            // The iOS and Android harnesses run the backoff timer, so the stream restarts at once.
            if queue.containsDelayedOperation(.listenStreamConnectionBackoff) {
                queue.runDelayed(until: .listenStreamConnectionBackoff)
            }
            if !listeners.isEmpty && !datastore.isWatchStreamOpen {
                throw SpecStepFailure(description: "the watch stream did not reopen after it was closed")
            }
        case let .writeAck(version, _):
            try acknowledgeWrite(version: version)
        case let .failWrite(error, keepInQueue):
            try failWrite(error: error, keepInQueue: keepInQueue)
        case let .enableNetwork(enable):
            networkEnabled = enable
            run { [self] in
                if enable {
                    remoteStore.enableNetwork()
                } else {
                    remoteStore.fillWritePipeline()
                    remoteStore.disableNetwork()
                }
            }
        case let .runTimer(timer):
            switch timer {
            case .all: queue.runAllDelayed()
            case let .timer(id): queue.runDelayed(until: id)
            }
        case let .changeUser(uid):
            currentUser = User(uid: uid)
            run { [self] in syncEngine.handleCredentialChange(User(uid: uid)) }
        case .restart:
            try restart()
        case let .triggerLruGC(threshold):
            guard variant == .persistent || !config.useEagerGCForMemory else { return }
            var failure: (any Error)?
            run { [self] in
                do { try localStore.collectGarbage(threshold: threshold) } catch { failure = error }
            }
            if let failure { throw failure }
        case .waitForPendingWrites:
            run { [self] in
                syncEngine.registerPendingWritesCallback { [unowned self] _ in waitForPendingWritesEvents += 1 }
            }
        case .addSnapshotsInSyncListener:
            run { [self] in
                let id = eventManager.addSnapshotsInSyncListener { [unowned self] in snapshotsInSyncEvents += 1 }
                snapshotsInSyncListenerIDs.append(id)
            }
        case .removeSnapshotsInSyncListener:
            guard let id = snapshotsInSyncListenerIDs.popLast() else {
                throw SpecStepFailure(description: "no snapshots-in-sync listener to remove")
            }
            run { [self] in eventManager.removeSnapshotsInSyncListener(id) }
        case .drainQueue:
            queue.drain()
        case let .loadBundle(text):
            let bundle = try LoadedBundle(parsing: text, databaseID: datastore.databaseID)
            var failure: (any Error)?
            run { [self] in
                do { try syncEngine.loadBundle(bundle) } catch { failure = error }
            }
            if let failure { throw failure }
        case .shutdown:
            throw SpecStepFailure(description: "shutdown is a multi-client step")
        case let .unsupported(kind):
            throw SpecStepFailure(description: "unsupported step \(kind)")
        }
    }

    private func listen(targetID: Int32, query: CairnModel.Query, options: SpecListenOptions) throws {
        let listenOptions = ListenOptions(
            includeDocumentMetadataChanges: true, includeQueryMetadataChanges: true,
            waitForSyncWhenOnline: false, source: options.sourceIsCache ? .cache : .default)
        let listener = QueryListener(query: query, options: listenOptions) { [unowned self] result in
            events.append((query, result))
        }
        listeners[query] = listener
        var outcome: Result<Int32, any Error> = .failure(SpecStepFailure(description: "listen did not run"))
        run { [self] in outcome = Result { try eventManager.addQueryListener(listener) } }
        let actual = try outcome.get()
        guard actual == targetID else {
            throw SpecStepFailure(description: "listen to \(query) got target \(actual), expected \(targetID)")
        }
    }

    private func write(_ mutation: Mutation) {
        outstandingWrites[currentUser, default: []].append([mutation])
        run { [self] in
            syncEngine.writeMutations([mutation]) { [unowned self] error in
                if error == nil { acknowledgedDocs.append(mutation.key) } else { rejectedDocs.append(mutation.key) }
            }
        }
    }

    /// Pops the current user's oldest outstanding write and checks it is the next batch on the write stream.
    private func nextOutstandingWrite() throws -> [Mutation] {
        guard var writes = outstandingWrites[currentUser], !writes.isEmpty else {
            throw SpecStepFailure(description: "no outstanding write of user \(currentUser.localStoreID) to acknowledge")
        }
        let expected = writes.removeFirst()
        outstandingWrites[currentUser] = writes
        guard let sent = datastore.nextSentWrite() else {
            throw SpecStepFailure(description: "the write of \(expected.map(\.key)) was not sent on the write stream")
        }
        guard sent == expected else {
            throw SpecStepFailure(description: "the write stream sent \(sent), expected \(expected)")
        }
        return expected
    }

    private func acknowledgeWrite(version: CairnModel.Timestamp) throws {
        let mutations = try nextOutstandingWrite()
        let results = mutations.map { _ in MutationResult(version: version) }
        run { [self] in datastore.ackWrite(commitVersion: version, results: results) }
    }

    private func failWrite(error: FirestoreErrorCode, keepInQueue: Bool) throws {
        let mutations = try nextOutstandingWrite()
        if keepInQueue {
            outstandingWrites[currentUser, default: []].insert(mutations, at: 0)
        }
        run { [self] in datastore.failWriteStream(error: error) }
        // As for the watch stream: run the backoff timer, so the stream restarts at once as in iOS's mock.
        if queue.containsDelayedOperation(.writeStreamConnectionBackoff) {
            queue.runDelayed(until: .writeStreamConnectionBackoff)
        }
    }
}
