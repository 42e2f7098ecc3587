import CairnModel
import SegmentLog

extension LocalStore {
    /// Applies a target or globals event during replay.
    func replayTargetEvent(_ kind: EventKind, _ record: RecordView) throws {
        throw LocalStoreError.dataLoss("target events are not supported by this version yet")
    }
}
