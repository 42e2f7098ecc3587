import Synchronization

/// Runs test bodies one at a time across every suite and test target of the test process (Swift Testing's
/// `.serialized` orders the tests of one suite only). The Realtime Database's class-level `goOffline()` and
/// `goOnline()` reach every database in the process, so their test and the end-to-end tests, whose connections
/// they would drop, take the same section.
///
/// ```swift
/// try await ExclusiveTestSection.realtimeDatabaseConnections.run { ... }
/// ```
package final class ExclusiveTestSection: Sendable {
    package static let realtimeDatabaseConnections = ExclusiveTestSection()

    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Waits until no other body runs in this section, then runs `body`.
    package func run<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let entered = state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if entered { continuation.resume() }
        }
    }

    private func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
