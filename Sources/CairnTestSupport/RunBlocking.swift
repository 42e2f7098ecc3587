import Dispatch
import Synchronization

/// Runs `body` on the concurrency runtime and waits for it on the calling thread: for the synchronous commands of
/// `cairn` and `cairn-bench`, whose threads are not the runtime's pool. Never call it from async code.
///
/// ```swift
/// let port = try runBlocking { try await server.start() }
/// ```
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    // Set before `done` is signalled; the initial failure is only a placeholder.
    let outcome = Mutex<Result<T, any Error>>(.failure(CancellationError()))
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0 }.get()
}
