import CairnModel
import CairnLocalStore
import CairnLogging

/// The write pipeline (Firebase's `RemoteStore` write half): batches from the local store's mutation queue go out
/// on the write stream in order, at most ``RemoteStore/maxPendingWrites`` at a time, after the handshake.
extension RemoteStore {
    /// Takes batches from the local store until the pipeline is full, sends them if the stream is ready, and
    /// starts the write stream if it has work.
    package func fillWritePipeline() {
        verifyOnQueue()
        var lastBatchID = writePipeline.last?.batchID
        while canAddToWritePipeline {
            // A store that cannot read its queue now leaves the batches there; the next fill tries again.
            guard let batch = try? localStore.nextMutationBatch(after: lastBatchID) else {
                if writePipeline.isEmpty { markWriteStreamIdle() }
                break
            }
            // A batch goes out only once the cache's sync behind it ended (group commit, Docs/LocalStore.md §10),
            // so a write the server acknowledged is on the disk; that sync's report fills the pipeline again.
            guard localStore.isBatchDurable(batch.batchID) else { break }
            addToWritePipeline(batch)
            lastBatchID = batch.batchID
        }
        if shouldStartWriteStream { startWriteStream() }
    }

    /// True when the pipeline has batches a started stream would send.
    package var shouldStartWriteStream: Bool {
        canUseNetwork && !writeStream.isStarted && !writeBackoff.isWaiting && !writePipeline.isEmpty
    }

    private var canAddToWritePipeline: Bool { canUseNetwork && writePipeline.count < Self.maxPendingWrites }

    private func addToWritePipeline(_ batch: MutationBatch) {
        writePipeline.append(batch)
        if writeStream.isOpen && writeStream.handshakeComplete { send(batch) }
    }

    private func send(_ batch: MutationBatch) {
        cancelWriteIdleTimer()
        writeStream.write(mutations: batch.mutations)
    }

    private func startWriteStream() {
        writeBackoff.backoffAndRun { [weak self] in self?.writeStream.start() }
    }

    /// Closes the write stream and forgets the batches in flight; they stay queued in the local store.
    package func stopWriteStream() {
        verifyOnQueue()
        cancelWriteIdleTimer()
        writeBackoff.cancel()
        writeBackoff.reset()
        writeStream.stop()
        writePipeline.removeAll()
    }

    private func markWriteStreamIdle() {
        guard writeStream.isOpen, writeIdleTimer == nil else { return }
        writeIdleTimer = queue.enqueueAfterFromQueue(delay: Self.streamIdleTimeout, timerID: .writeStreamIdle) { [weak self] in
            guard let self else { return }
            writeIdleTimer = nil
            guard writeStream.isOpen, writePipeline.isEmpty else { return }
            writeStream.stop()
            writeBackoff.reset()
        }
    }

    private func cancelWriteIdleTimer() {
        writeIdleTimer?.cancel()
        writeIdleTimer = nil
    }

    /// Persists the stream token for the current user. The token only spares the server work, so a store that
    /// cannot save it now loses nothing: the next handshake sends the older one.
    private func persistStreamToken(_ token: [UInt8]) {
        try? localStore.setWriteStreamToken(token, forUser: localStore.currentUser)
    }

    /// Firebase's `Datastore::IsPermanentError`: the request itself is wrong, so retrying cannot help.
    package static func isPermanentError(_ code: FirestoreErrorCode.Code) -> Bool {
        switch code {
        case .ok, .cancelled, .unknown, .deadlineExceeded, .resourceExhausted, .internal, .unavailable, .unauthenticated:
            false
        case .invalidArgument, .notFound, .alreadyExists, .permissionDenied, .failedPrecondition, .aborted, .outOfRange,
            .unimplemented, .dataLoss:
            true
        }
    }

    /// Permanent for a write: as ``isPermanentError(_:)``, except that `aborted` (contention) is retried.
    package static func isPermanentWriteError(_ code: FirestoreErrorCode.Code) -> Bool {
        isPermanentError(code) && code != .aborted
    }
}

extension RemoteStore: WriteStreamDelegate {
    package func writeStreamDidOpen() {
        verifyOnQueue()
        CairnLogger.firestoreRemote.debug("write stream open, \(writePipeline.count) batch(es) in the pipeline")
        writeStream.writeHandshake()
    }

    package func writeStreamDidCompleteHandshake() {
        verifyOnQueue()
        // No backoff reset here: the writes themselves may be what fails, and a stream that accepts the handshake
        // but fails every write must still back off (Firebase resets only on a write response).
        persistStreamToken(writeStream.lastStreamToken)
        for batch in writePipeline { send(batch) }
    }

    package func writeStreamDidReceiveResponse(commitVersion: Timestamp, results: [MutationResult]) {
        verifyOnQueue()
        guard let batch = writePipeline.first else {
            // An acknowledgement for nothing in flight: the stream is out of step, so start it over.
            restartWriteStreamAfterError(FirestoreErrorCode(.internal, "The write stream acknowledged a write that was never sent."))
            return
        }
        guard let result = try? MutationBatchResult(batch: batch, commitVersion: commitVersion, mutationResults: results)
        else {
            restartWriteStreamAfterError(FirestoreErrorCode(
                .dataLoss, "The write stream's answer does not match batch \(batch.batchID); the batch will be sent again."))
            return
        }
        writePipeline.removeFirst()
        CairnLogger.firestoreRemote.debug(
            "write batch \(batch.batchID) acknowledged at \(commitVersion.seconds).\(commitVersion.nanoseconds): "
                + batch.mutations.map { "\($0.key)" }.joined(separator: ", "))
        // A successful write proves the stream healthy.
        writeBackoff.reset()
        persistStreamToken(writeStream.lastStreamToken)
        syncer?.applySuccessfulWrite(result)
        fillWritePipeline()
    }

    package func writeStreamWasInterrupted(error: FirestoreErrorCode?) {
        verifyOnQueue()
        CairnLogger.firestoreRemote.debug("write stream closed\(error.map { ": \($0.code) \($0.message)" } ?? "")")
        if let error, !writePipeline.isEmpty {
            if writeStream.handshakeComplete {
                handleWriteError(error)
            } else {
                handleHandshakeError(error)
            }
        }
        if error?.code == .resourceExhausted { writeBackoff.resetToMax() }
        if shouldStartWriteStream { startWriteStream() }
    }

    /// A write failed: a permanent error rejects the batch (and the next attempt needs no backoff, since the
    /// server is fine); a transient one leaves it for the retry.
    private func handleWriteError(_ error: FirestoreErrorCode) {
        guard Self.isPermanentWriteError(error.code) else { return }
        let batch = writePipeline.removeFirst()
        CairnLogger.firestoreRemote.warning(
            "write batch \(batch.batchID) rejected by the server (\(error.code)): "
                + batch.mutations.map { "\($0.key)" }.joined(separator: ", "))
        writeBackoff.reset()
        syncer?.rejectFailedWrite(batchID: batch.batchID, error: error)
        fillWritePipeline()
    }

    /// The handshake failed: a permanent error means the server cannot use our stream token, so forget it.
    private func handleHandshakeError(_ error: FirestoreErrorCode) {
        guard Self.isPermanentError(error.code) else { return }
        writeStream.lastStreamToken = []
        persistStreamToken([])
    }

    /// Closes a stream that went out of step and treats it as a transient failure: everything in flight is sent
    /// again on the new stream.
    private func restartWriteStreamAfterError(_ error: FirestoreErrorCode) {
        writeStream.stop()
        writeStreamWasInterrupted(error: error)
    }
}
