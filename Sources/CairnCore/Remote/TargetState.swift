import CairnModel
import CairnLocalStore

/// What the ``WatchChangeAggregator`` tracks for one target between two consistent snapshots (Firebase's
/// `TargetState`).
package struct TargetState {
    /// How a document changed relative to the target's last consistent snapshot.
    package enum DocumentChangeKind: Hashable {
        case added
        case modified
        case removed
    }

    /// Requests (watch and unwatch) sent for the target and not yet answered by ADD or REMOVE. While above zero
    /// the target is pending: every message about it is ignored.
    private var outstandingResponses = 0
    private var documentChanges: [DocumentKey: DocumentChangeKind] = [:]
    package private(set) var resumeToken: [UInt8] = []
    package private(set) var current = false
    /// True when the target has changes to report. Starts true so that the first snapshot after an ADD reports the
    /// target even with no documents.
    package private(set) var hasPendingChanges = true

    /// True while a watch or unwatch request awaits its answer.
    package var isPending: Bool { outstandingResponses != 0 }

    /// Keeps a non-empty token; an empty one (no token sent) leaves the current one.
    package mutating func updateResumeToken(_ token: [UInt8]) {
        guard !token.isEmpty else { return }
        hasPendingChanges = true
        resumeToken = token
    }

    /// The target's part of the next remote event.
    package var targetChange: TargetChange {
        var change = TargetChange(resumeToken: resumeToken, current: current)
        for (key, kind) in documentChanges {
            switch kind {
            case .added: change.added.insert(key)
            case .modified: change.modified.insert(key)
            case .removed: change.removed.insert(key)
            }
        }
        return change
    }

    package mutating func clearPendingChanges() {
        hasPendingChanges = false
        documentChanges.removeAll()
    }

    package mutating func addDocumentChange(_ key: DocumentKey, _ kind: DocumentChangeKind) {
        hasPendingChanges = true
        documentChanges[key] = kind
    }

    package mutating func removeDocumentChange(_ key: DocumentKey) {
        hasPendingChanges = true
        documentChanges[key] = nil
    }

    package mutating func recordPendingTargetRequest() { outstandingResponses += 1 }

    package mutating func recordTargetResponse() { outstandingResponses -= 1 }

    package mutating func markCurrent() {
        hasPendingChanges = true
        current = true
    }
}
