import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Synchronization
import Testing

@testable import CairnGRPC

/// Every test against the official Firestore emulator, in one parent suite so that a machine without the emulator
/// reports one skipped suite, with the reason, instead of one line per test.
@Suite(
    "Firestore emulator", .serialized,
    .enabled(if: EmulatorGate.shouldRun, EmulatorGate.skipReason))
enum EmulatorTests {}

/// Decides whether the emulator suites run, and connects clients to the shared emulator.
///
/// Without the emulator the suites are skipped with one line (the trait's comment); under `CI=true` they run
/// anyway and fail with the launcher's reason, so CI cannot silently skip them.
enum EmulatorGate {
    static let shouldRun = FirestoreEmulator.missingReason == nil || FirestoreEmulator.isCI

    /// The one line a machine without the emulator prints for the skipped suite.
    static let skipReason = Comment(
        rawValue:
            "Firestore emulator tests skipped: \(FirestoreEmulator.missingReason ?? "the emulator is available"); "
            + "set CI=true to make this a failure")

    /// A client for a fresh project (its documents deleted) on the shared emulator.
    static func client(project: String) async throws -> FirestoreRPC {
        let emulator = try await FirestoreEmulator.shared()
        Startup.reportOnce(emulator)
        try emulator.reset(projectID: project)
        return try FirestoreRPC(
            configuration: .emulator(
                databaseID: DatabaseID(projectID: project), host: emulator.host, port: emulator.port))
    }

    /// Prints the emulator's startup time once per test process (a measurement for the CI budget, not a test).
    private enum Startup {
        static let reported = Mutex(false)

        static func reportOnce(_ emulator: FirestoreEmulator) {
            let first = reported.withLock { reported in
                defer { reported = true }
                return !reported
            }
            if first {
                print(
                    "Firestore emulator ready on \(emulator.hostAndPort) after \(emulator.startupDuration) (log: \(emulator.logPath))"
                )
            }
        }
    }
}

/// Records a stream's events as they arrive and waits for the first one that matches, with a generous hang guard
/// (the guard only stops a broken run from hanging; no test asserts on timing).
final class EventRecorder<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])
    private let finished = Mutex(false)

    init(_ stream: AsyncStream<Event>) {
        Task {
            for await event in stream { self.events.withLock { $0.append(event) } }
            self.finished.withLock { $0 = true }
        }
    }

    var all: [Event] { events.withLock { $0 } }

    /// The index and value of the first event at or after `start` that satisfies `predicate`.
    func first(
        from start: Int = 0, where predicate: (Event) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (index: Int, event: Event) {
        for _ in 0..<1500 {
            let done = finished.withLock { $0 }
            let snapshot = all
            if start < snapshot.count, let index = snapshot[start...].firstIndex(where: predicate) {
                return (index, snapshot[index])
            }
            if done { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no matching event; got \(all)", sourceLocation: sourceLocation)
        throw FirestoreErrorCode(.deadlineExceeded, "no matching stream event")
    }
}
