import CairnModel
import SegmentLog

extension LocalStore {
    /// Applies a `mutationBatchAdded` / `mutationBatchRemoved` event during replay.
    func replayMutationQueueEvent(_ kind: EventKind, _ record: RecordView) throws {
        throw LocalStoreError.dataLoss("mutation events are not supported by this version yet")
    }
}
