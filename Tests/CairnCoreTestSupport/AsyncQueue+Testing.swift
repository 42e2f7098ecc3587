import CairnCore

extension AsyncQueue {
    /// Runs `body` on this queue now, after what is enqueued before it (on a manual queue: a drain on the calling
    /// thread), and returns its result: how a test calls a core object, which is confined to its queue.
    ///
    /// ```swift
    /// queue.sync { backoff.backoffAndRun { attempts += 1 } }
    /// ```
    @discardableResult
    package func sync<T>(_ body: @escaping () -> T) -> T {
        do {
            return try enqueueAndWait(body)
        } catch {
            preconditionFailure("a body that cannot throw threw \(error)")
        }
    }
}
