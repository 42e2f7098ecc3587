import CairnModel

/// One document's change between two snapshots of a view (Firebase's `DocumentViewChange`).
package struct DocumentViewChange: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case removed
        case added
        case modified
        /// Only the document's metadata changed (its pending-writes state); the public API shows it as modified.
        case metadata

        /// The order of change kinds in a snapshot: removals first, then additions, then modifications.
        package var sortPosition: Int {
            switch self {
            case .removed: 0
            case .added: 1
            case .modified, .metadata: 2
            }
        }
    }

    package var kind: Kind
    package var document: Document

    package static func == (a: DocumentViewChange, b: DocumentViewChange) -> Bool {
        a.kind == b.kind && a.document.isSameSnapshotContent(as: b.document)
    }
}

/// The changes of one view computation, at most one per document, merged by Firebase's rules
/// (`DocumentViewChangeSet::AddChange`): an addition then a modification is still an addition, a removal then an
/// addition is a modification, an addition then a removal is nothing, and so on.
package struct DocumentViewChangeSet: Sendable {
    private var changes: [DocumentKey: DocumentViewChange] = [:]

    package var isEmpty: Bool { changes.isEmpty }

    package mutating func add(_ change: DocumentViewChange) {
        let key = change.document.key
        guard let old = changes[key] else {
            changes[key] = change
            return
        }
        switch (old.kind, change.kind) {
        case (.metadata, let new) where new != .added:
            changes[key] = change
        case (let previous, .metadata) where previous != .removed:
            changes[key] = DocumentViewChange(kind: previous, document: change.document)
        case (.modified, .modified):
            changes[key] = change
        case (.added, .modified):
            changes[key] = DocumentViewChange(kind: .added, document: change.document)
        case (.added, .removed):
            changes[key] = nil
        case (.modified, .removed):
            changes[key] = DocumentViewChange(kind: .removed, document: old.document)
        case (.removed, .added):
            changes[key] = DocumentViewChange(kind: .modified, document: change.document)
        default:
            // Firebase asserts here ("Unsupported combination of changes"); the newest change is the best guess.
            changes[key] = change
        }
    }

    /// The changes in no particular order.
    package var all: [DocumentViewChange] { Array(changes.values) }
}
