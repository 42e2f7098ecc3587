/// The kinds of delayed operations the core schedules on its ``AsyncQueue`` (Firebase's `TimerId`).
///
/// Tests run delayed operations by id instead of waiting for them: `queue.runDelayed(until: .onlineStateTimeout)`.
/// The raw values are the strings the Firestore spec tests use in their `runTimer` step.
package enum TimerID: String, Sendable, Hashable, CaseIterable {
    /// The watch stream has had no targets for a minute: close it.
    case listenStreamIdle = "listen_stream_idle"
    /// The watch stream waits out its backoff before reconnecting.
    case listenStreamConnectionBackoff = "listen_stream_connection_backoff"
    /// The write stream has had nothing to send for a minute: close it.
    case writeStreamIdle = "write_stream_idle"
    /// The write stream waits out its backoff before reconnecting.
    case writeStreamConnectionBackoff = "write_stream_connection_backoff"
    /// The watch stream has not answered for 10 s: report the client offline.
    case onlineStateTimeout = "online_state_timeout"
    /// The periodic LRU garbage collection.
    case garbageCollection = "lru_garbage_collection"
    /// A transaction waits out its backoff before retrying.
    case retryTransaction = "retry_transaction"
    /// A failed queue operation waits before it is retried (used by persistence-failure recovery).
    case asyncQueueRetry = "async_queue_retry"
    /// The periodic index backfill.
    case indexBackfill = "index_backfill"
    /// Multi-tab metadata refresh; never scheduled by Cairn, kept so every spec-test string parses.
    case clientMetadataRefresh = "client_metadata_refresh"
    /// Firebase's health check of the connectivity monitor; never scheduled by Cairn.
    case healthCheckTimeout = "health_check_timeout"
}
