import CairnModel
import SegmentLog

/// The mutation queue (Firebase's `MutationQueue` with its `DocumentOverlayCache`): owns the outbox view with
/// the current user's overlays and the batch events, `mutationBatchAdded` and `mutationBatchRemoved`. Replay
/// reads headers only: batches are decoded when the outbox is first used. A batch removal stays live for good
/// (nothing holds it, so compaction has nothing to follow). The operations are in
/// `LocalStore+MutationQueue.swift`, the local documents view over it in `LocalStore+LocalDocuments.swift`.
///
/// ```swift
/// let queue = MutationQueue()
/// try queue.replay(record, kind: .mutationBatchAdded, into: store)
/// queue.view.queue(of: "ada").map(\.batchID)
/// ```
final class MutationQueue: StoreComponent {
    /// The pending batches per user and the current user's overlays.
    var view = MutationQueueView()

    static let eventKinds: [EventKind] = [.mutationBatchAdded, .mutationBatchRemoved]

    func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws {
        let batchID = try MutationBatchEvent.batchID(from: record.key)
        let reference = EventReference.log(record.location)
        if kind == .mutationBatchAdded {
            let user = try MutationBatchEvent.addedUser(record.value, batchID: batchID).user
            let entry = QueuedBatch(batchID: batchID, user: user, reference: reference, batch: nil)
            if let dead = try view.replayAdded(entry) { store.events.retire(dead) }
        } else {
            // Checked, so damage shows at open; the view needs only the fact of the removal.
            _ = try MutationBatchEvent.decodeRemoved(record.value, batchID: batchID)
            if let removed = view.replayRemoved(batchID) { store.events.retire(removed.reference) }
        }
    }

    func finishReplay(into store: LocalStore) throws {}

    var liveEventCount: Int { view.usersWithPendingBatches.reduce(0) { $0 + view.queue(of: $1).count } }

    func relocate(_ move: Relocation, kind: EventKind, key: UnsafeRawBufferPointer, context: inout RelocationContext) throws {
        guard kind == .mutationBatchAdded else { return }  // a batch removal is never retired: no view holds it
        view.relocate(try MutationBatchEvent.batchID(from: key), from: .log(move.from), to: .log(move.to))
    }

    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON) {
        let batchID = try MutationBatchEvent.batchID(from: key)
        guard kind == .mutationBatchRemoved else {
            let (user, batch) = try MutationBatchEvent.decodeAdded(value, batchID: batchID)
            return ("batch \(batchID)", DecodedRecord.batchJSON(batch, user: user))
        }
        switch try MutationBatchEvent.decodeRemoved(value, batchID: batchID) {
        case .acknowledged(let commitVersion):
            return ("batch \(batchID)", .object([
                ("reason", .string("acknowledged")),
                ("commitVersion", .string(InspectionJSON.formatTimestamp(commitVersion))),
            ]))
        case .rejected:
            return ("batch \(batchID)", .object([("reason", .string("rejected"))]))
        }
    }
}
