import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
@testable import CairnCore

/// A network whose watch stream the test drives: `start()` only begins connecting, and the test then opens it
/// (``WatchStream/open()``) or makes the attempt fail (``WatchStream/fail(_:)``), on the core's queue. It
/// records every start and every request. The write stream and the RPCs behave as ``SilentDatastore``'s.
final class ScriptedWatchDatastore: Datastore {
    final class WatchStream: CairnCore.WatchStream {
        weak var delegate: (any WatchStreamDelegate)?
        private(set) var isStarted = false
        private(set) var isOpen = false
        /// How many times the RemoteStore started the stream.
        private(set) var starts = 0
        /// Every request since the stream was created: `+id` for a watch, `-id` for an unwatch.
        private(set) var requests: [Int32] = []
        /// The targets watched on the current stream.
        private(set) var watched: Set<Int32> = []

        func start() {
            precondition(!isStarted, "start() on a started stream")
            isStarted = true
            starts += 1
        }

        func stop() {
            isStarted = false
            isOpen = false
            watched = []
        }

        func watch(_ targetData: TargetData) {
            precondition(isOpen, "watch() on a stream that is not open")
            requests.append(targetData.targetID)
            watched.insert(targetData.targetID)
        }

        func unwatch(targetID: Int32) {
            precondition(isOpen, "unwatch() on a stream that is not open")
            requests.append(-targetID)
            watched.remove(targetID)
        }

        /// The connection attempt succeeds.
        func open() {
            precondition(isStarted && !isOpen, "open() needs a connecting stream")
            isOpen = true
            delegate?.watchStreamDidOpen()
        }

        /// The connection attempt (or the open stream) fails with `error`.
        func fail(_ error: FirestoreErrorCode = FirestoreErrorCode(.unavailable, "the backend is down")) {
            precondition(isStarted, "fail() needs a started stream")
            stop()
            delegate?.watchStreamWasInterrupted(error: error)
        }
    }

    let watch = WatchStream()
    let databaseID = DatabaseID(projectID: "test-project", databaseID: "(default)")

    func makeWatchStream(delegate: any WatchStreamDelegate) -> any CairnCore.WatchStream {
        watch.delegate = delegate
        return watch
    }

    func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream { SilentDatastore.Stream() }

    func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func runAggregateQuery(
        _ query: CairnModel.Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func rollback(transactionID: [UInt8]) {}
}
