import CairnModel
import CairnLocalStore

/// What the ``RemoteStore`` calls back into (Firebase's `RemoteSyncer`; the SyncEngine implements it). Every call
/// happens on the ``AsyncQueue``.
package protocol RemoteSyncer: AnyObject {
    /// A consistent snapshot from the watch stream: apply it to the local store and raise view changes.
    func applyRemoteEvent(_ event: RemoteEvent)
    /// The server removed a target with an error (e.g. permission denied): fail its listeners.
    func rejectListen(targetID: Int32, error: FirestoreErrorCode)
    /// The server acknowledged the oldest batch in flight.
    func applySuccessfulWrite(_ result: MutationBatchResult)
    /// The server rejected a batch with a permanent error.
    func rejectFailedWrite(batchID: Int, error: FirestoreErrorCode)
    /// The keys the target had at the last consistent snapshot, plus those of limbo targets the syncer tracks.
    func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey>
    /// The online state changed.
    func handleOnlineStateChange(_ state: OnlineState)
}
