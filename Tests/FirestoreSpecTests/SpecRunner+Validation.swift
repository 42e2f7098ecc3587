import CairnModel
import CairnLocalStore

@testable import CairnCore

/// The checks after every step (reference/spec-tests.md §7.5). Each returns the mismatches it found.
struct SpecExpectations {
    var activeTargets: [Int32: SpecActiveTarget] = [:]
    var activeLimboDocs: Set<DocumentKey> = []
    var enqueuedLimboDocs: Set<DocumentKey> = []

    mutating func update(with state: SpecExpectedState?) {
        guard let state else { return }
        if let targets = state.activeTargets { activeTargets = targets }
        if let limbo = state.activeLimboDocs { activeLimboDocs = limbo }
        if let enqueued = state.enqueuedLimboDocs { enqueuedLimboDocs = enqueued }
    }
}

extension SpecDriver {
    func validate(_ step: SpecStep, _ expectations: inout SpecExpectations) -> [String] {
        var problems: [String] = []
        problems += validateEvents(step.expectedSnapshotEvents ?? [])
        expectations.update(with: step.expectedState)
        problems += validateState(step.expectedState, expectations)
        if snapshotsInSyncEvents != step.expectedSnapshotsInSyncEvents {
            problems.append("snapshots-in-sync events: \(snapshotsInSyncEvents), expected \(step.expectedSnapshotsInSyncEvents)")
        }
        if waitForPendingWritesEvents != step.expectedWaitForPendingWritesEvents {
            problems.append(
                "waitForPendingWrites events: \(waitForPendingWritesEvents), expected \(step.expectedWaitForPendingWritesEvents)")
        }
        problems += internalErrors.map { "internal error: \($0)" }
        events = []
        acknowledgedDocs = []
        rejectedDocs = []
        snapshotsInSyncEvents = 0
        waitForPendingWritesEvents = 0
        internalErrors = []
        return problems
    }

    private func validateEvents(_ expected: [SpecSnapshotEvent]) -> [String] {
        guard events.count == expected.count else {
            return ["\(events.count) snapshot events, expected \(expected.count): \(events.map { describe($0.result) })"]
        }
        let actual = events.sorted { $0.query.canonicalID < $1.query.canonicalID }
        let wanted = expected.sorted { $0.query.canonicalID < $1.query.canonicalID }
        var problems: [String] = []
        for (event, expectation) in zip(actual, wanted) {
            guard event.query == expectation.query else {
                problems.append("event for \(event.query), expected \(expectation.query)")
                continue
            }
            switch event.result {
            case .failure(let error):
                if expectation.errorCode != error.code.rawValue {
                    problems.append("error \(error.code.rawValue) for \(event.query), expected code \(expectation.errorCode)")
                }
            case .success(let snapshot):
                if expectation.errorCode != 0 {
                    problems.append("a snapshot for \(event.query), expected error \(expectation.errorCode)")
                    continue
                }
                problems += compare(snapshot, expectation)
            }
        }
        return problems
    }

    private func compare(_ snapshot: ViewSnapshot, _ expected: SpecSnapshotEvent) -> [String] {
        var problems: [String] = []
        let wanted = (expected.removed.map { (DocumentViewChange.Kind.removed, $0) }
            + expected.added.map { (.added, $0) } + expected.modified.map { (.modified, $0) }
            + expected.metadata.map { (.metadata, $0) }).sorted { $0.1.key < $1.1.key }
        let actual = snapshot.documentChanges.sorted { $0.document.key < $1.document.key }
        let matches = wanted.count == actual.count && zip(wanted, actual).allSatisfy { want, change in
            want.0 == change.kind && Self.sameDocument(want.1, change.document)
        }
        if !matches {
            problems.append(
                "changes of \(snapshot.query): \(actual.map { describe($0.kind, $0.document) }), expected "
                    + "\(wanted.map { describe($0.0, $0.1) })")
        }
        if snapshot.isFromCache != expected.fromCache {
            problems.append("fromCache \(snapshot.isFromCache) for \(snapshot.query), expected \(expected.fromCache)")
        }
        if snapshot.hasPendingWrites != expected.hasPendingWrites {
            problems.append("hasPendingWrites \(snapshot.hasPendingWrites) for \(snapshot.query), expected \(expected.hasPendingWrites)")
        }
        return problems
    }

    /// Key, existence, version, contents and local/committed state, as the harnesses compare documents.
    static func sameDocument(_ a: Document, _ b: Document) -> Bool {
        a.key == b.key && a.exists == b.exists && a.version == b.version && (!a.exists || a.data == b.data)
            && documentState(a) == documentState(b)
    }

    private static func documentState(_ document: Document) -> Int {
        document.hasLocalMutations ? 1 : document.hasCommittedMutations ? 2 : 0
    }

    private func validateState(_ state: SpecExpectedState?, _ expectations: SpecExpectations) -> [String] {
        var problems: [String] = []
        let callbacks = state?.userCallbacks ?? SpecUserCallbacks(acknowledgedDocs: [], rejectedDocs: [])
        if callbacks.acknowledgedDocs != acknowledgedDocs {
            problems.append("acknowledged \(acknowledgedDocs), expected \(callbacks.acknowledgedDocs)")
        }
        if callbacks.rejectedDocs != rejectedDocs {
            problems.append("rejected \(rejectedDocs), expected \(callbacks.rejectedDocs)")
        }
        if let count = state?.numOutstandingWrites, count != datastore.sentWrites.count {
            problems.append("\(datastore.sentWrites.count) outstanding writes, expected \(count)")
        }
        if let count = state?.writeStreamRequestCount, count != datastore.writeStreamRequestCount {
            problems.append("\(datastore.writeStreamRequestCount) write-stream requests, expected \(count)")
        }
        if let count = state?.watchStreamRequestCount, count != datastore.watchStreamRequestCount {
            problems.append("\(datastore.watchStreamRequestCount) watch-stream requests, expected \(count)")
        }
        let limbo = syncEngine.activeLimboDocuments
        if Set(limbo.keys) != expectations.activeLimboDocs {
            problems.append("active limbo docs \(limbo.keys.sorted()), expected \(expectations.activeLimboDocs.sorted())")
        }
        for (key, targetID) in limbo where expectations.activeTargets[targetID] == nil {
            problems.append("limbo target \(targetID) of \(key) is not an expected active target")
        }
        if Set(syncEngine.enqueuedLimboDocuments) != expectations.enqueuedLimboDocs {
            problems.append(
                "enqueued limbo docs \(syncEngine.enqueuedLimboDocuments), expected \(expectations.enqueuedLimboDocs.sorted())")
        }
        if networkEnabled { problems += validateActiveTargets(expectations.activeTargets) }
        return problems
    }

    private func validateActiveTargets(_ expected: [Int32: SpecActiveTarget]) -> [String] {
        var problems: [String] = []
        let active = datastore.activeTargets
        for (targetID, target) in expected.sorted(by: { $0.key < $1.key }) {
            guard let actual = active[targetID] else {
                problems.append("target \(targetID) is not active on the watch stream")
                continue
            }
            if let query = target.queries.first, actual.query.target != query.target {
                problems.append("target \(targetID) runs \(actual.query.target), expected \(query.target)")
            }
            if actual.purpose != target.purpose {
                problems.append("target \(targetID) has purpose \(actual.purpose), expected \(target.purpose)")
            }
            if actual.resumeToken != target.resumeToken {
                problems.append(
                    "target \(targetID) resume token \"\(String(decoding: actual.resumeToken, as: UTF8.self))\", expected "
                        + "\"\(String(decoding: target.resumeToken, as: UTF8.self))\"")
            }
            if let count = target.expectedCount, actual.expectedCount != count {
                problems.append("target \(targetID) expected count \(String(describing: actual.expectedCount)), expected \(count)")
            }
        }
        for targetID in active.keys where expected[targetID] == nil {
            problems.append("target \(targetID) is active on the watch stream but not expected")
        }
        return problems
    }

    private func describe(_ result: Result<ViewSnapshot, FirestoreErrorCode>) -> String {
        switch result {
        case .failure(let error): return "error \(error.code)"
        case .success(let snapshot):
            return "\(snapshot.query.canonicalID) fromCache=\(snapshot.isFromCache) pending=\(snapshot.hasPendingWrites) "
                + "\(snapshot.documentChanges.map { describe($0.kind, $0.document) })"
        }
    }

    private func describe(_ kind: DocumentViewChange.Kind, _ document: Document) -> String {
        let flags = document.hasLocalMutations ? " local" : document.hasCommittedMutations ? " committed" : ""
        return "\(kind) \(document.key)@\(document.version.seconds * 1_000_000 + Int64(document.version.nanoseconds / 1000))"
            + (document.exists ? " \(document.data.fields)" : " missing") + flags
    }
}
