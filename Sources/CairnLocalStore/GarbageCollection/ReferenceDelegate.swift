import CairnModel

/// What happens to documents that lose their last reference (Firebase's `ReferenceDelegate`): eager memory mode
/// removes them at the end of the operation, LRU collection (persistent caches, memory caches in LRU mode) keeps
/// them as orphans until `collectGarbage` runs. The store tells the delegate about every document that may have
/// lost its last reference and asks it, at the end of each operation that may drop one, what to remove now.
///
/// ```swift
/// let delegate: any ReferenceDelegate = EagerReferenceDelegate()
/// delegate.noteUnreferenced(key)
/// delegate.takeCandidates()          // [key]: the store evicts those nothing references by now
/// ```
protocol ReferenceDelegate: AnyObject {
    /// Whether releasing a target without `keepPersisted` removes it at once.
    var removesReleasedTargets: Bool { get }
    /// Records that `key` may have lost its last reference in the current operation.
    func noteUnreferenced(_ key: DocumentKey)
    /// The documents to check for removal now, forgotten once returned.
    func takeCandidates() -> Set<DocumentKey>
}

/// Eager memory mode (Firebase's `MemoryEagerReferenceDelegate`): a document goes as soon as nothing
/// references it, a released target at once.
final class EagerReferenceDelegate: ReferenceDelegate {
    /// Documents whose last reference may have gone in the current operation.
    private var candidates: Set<DocumentKey> = []

    var removesReleasedTargets: Bool { true }

    func noteUnreferenced(_ key: DocumentKey) { candidates.insert(key) }

    func takeCandidates() -> Set<DocumentKey> {
        defer { candidates = [] }
        return candidates
    }
}

/// LRU collection (Firebase's `LruDelegate`): nothing goes on its own; the orphans wait in the
/// remote documents view's ``OrphanQueue`` for `collectGarbage`.
final class LruReferenceDelegate: ReferenceDelegate {
    var removesReleasedTargets: Bool { false }

    func noteUnreferenced(_ key: DocumentKey) {}

    func takeCandidates() -> Set<DocumentKey> { [] }
}
