import CairnModel
@testable import CairnLocalStore

/// A remote documents view driven together with a model of what its orphan queue must hold — the cached keys and
/// each queued orphan's sequence number — for the random-change tests of the queue (CompactViewTests,
/// OrphanQueueSlotTests).
///
/// ```swift
/// var model = OrphanModel()
/// model.set(OrphanModel.entry(sequence: 1), for: key)
/// model.setOrphan(key, sequence: 1)
/// #expect(model.sequencesMatch(keys))
/// ```
struct OrphanModel {
    var view = RemoteDocumentView()
    private(set) var cached: Set<DocumentKey> = []
    /// The queued orphans' sequence numbers.
    private(set) var sequences: [DocumentKey: UInt64] = [:]

    /// Evicts `key` from the view and the model.
    mutating func remove(_ key: DocumentKey) {
        view.remove(key)
        cached.remove(key)
        sequences[key] = nil
    }

    /// Takes `key` out of the queue; returns what the view and the model say about whether it was there.
    mutating func removeOrphan(_ key: DocumentKey) -> (view: Bool, model: Bool) {
        (view.removeOrphan(key), sequences.removeValue(forKey: key) != nil)
    }

    /// Caches `entry` for `key` (a queued orphan stays queued).
    mutating func set(_ entry: RemoteDocumentEntry, for key: DocumentKey) {
        view.set(entry, for: key)
        cached.insert(key)
    }

    /// Queues `key` at `sequence` (nothing when it is not cached).
    mutating func setOrphan(_ key: DocumentKey, sequence: UInt64) {
        view.setOrphan(key, sequence: sequence)
        if cached.contains(key) { sequences[key] = sequence }
    }

    /// Whether the view's orphan count and every key's sequence number match the model.
    func sequencesMatch(_ keys: [DocumentKey]) -> Bool {
        view.orphanCount == sequences.count && keys.allSatisfy { view.orphanSequence(of: $0) == sequences[$0] }
    }

    /// An entry whose version and memory reference follow `sequence`.
    static func entry(sequence: UInt64, state: Document.State = .found) -> RemoteDocumentEntry {
        RemoteDocumentEntry(
            reference: .memory(Int(sequence)), state: state, version: Timestamp(seconds: Int64(sequence), nanoseconds: 1),
            readTime: Timestamp(seconds: 2, nanoseconds: 3), hasCommittedMutations: false, sequence: sequence)
    }
}
