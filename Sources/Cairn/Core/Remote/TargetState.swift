import CairnModel
import LocalStore

/// What the ``WatchChangeAggregator`` tracks for one target between two consistent snapshots (Firebase's
/// `TargetState`).
struct TargetState {
    /// How a document changed relative to the target's last consistent snapshot.
    enum DocumentChangeKind: Hashable {
        case added
        case modified
        case removed
    }

    /// Requests (watch and unwatch) sent for the target and not yet answered by ADD or REMOVE. While above zero
    /// the target is pending: every message about it is ignored.
    private var outstandingResponses = 0
    private var documentChanges: [DocumentKey: DocumentChangeKind] = [:]
    private(set) var resumeToken: [UInt8] = []
    private(set) var current = false
    /// True when the target has changes to report. Starts true so that the first snapshot after an ADD reports the
    /// target even with no documents.
    private(set) var hasPendingChanges = true

    /// True while a watch or unwatch request awaits its answer.
    var isPending: Bool { outstandingResponses != 0 }

    /// Keeps a non-empty token; an empty one (no token sent) leaves the current one.
    mutating func updateResumeToken(_ token: [UInt8]) {
        guard !token.isEmpty else { return }
        hasPendingChanges = true
        resumeToken = token
    }

    /// The target's part of the next remote event.
    var targetChange: TargetChange {
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

    mutating func clearPendingChanges() {
        hasPendingChanges = false
        documentChanges.removeAll()
    }

    mutating func addDocumentChange(_ key: DocumentKey, _ kind: DocumentChangeKind) {
        hasPendingChanges = true
        documentChanges[key] = kind
    }

    mutating func removeDocumentChange(_ key: DocumentKey) {
        hasPendingChanges = true
        documentChanges[key] = nil
    }

    mutating func recordPendingTargetRequest() { outstandingResponses += 1 }

    mutating func recordTargetResponse() { outstandingResponses -= 1 }

    mutating func markCurrent() {
        hasPendingChanges = true
        current = true
    }
}
