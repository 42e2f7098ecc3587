import Dispatch

/// Where the server's tasks run: a concurrent dispatch queue of its own instead of Swift's cooperative pool, which
/// has one thread per core. The server runs in-process in tests and tools whose other work may block pool threads
/// (waiting on a child process, a semaphore); on a two-core machine two such waits would otherwise leave every
/// connection without a thread until they end. Dispatch adds threads when its threads block, so the server keeps
/// answering.
///
/// ```swift
/// Task(executorPreference: ServerExecutor.shared) { await serve(connection) }   // child tasks inherit it
/// ```
final class ServerExecutor: TaskExecutor {
    static let shared = ServerExecutor()

    private let queue = DispatchQueue(label: "cairn.database-server", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
