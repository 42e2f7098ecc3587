/// Carries a user callback, which Firebase's API does not require to be `Sendable`, from the calling thread to
/// the one thread that calls it (the callback queue, or the thread a blocking API waits on). The only unchecked
/// hand-over left between the API and the core besides a bundle's `InputStream` (`FirestoreClient.loadBundle`):
/// the core itself keeps its non-`Sendable` values in `QueueBound` boxes that check the thread on every access.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}
