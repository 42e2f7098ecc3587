import CairnDatabaseCore
import Foundation

/// A connection the test drives (like the Firestore spec tests' scripted datastore): it records the listens and
/// writes the repo sends and lets the test answer them, connect, disconnect and push server data.
final class ScriptedConnection: DatabaseConnection, @unchecked Sendable {
    struct Listen {
        let query: QuerySpec
        let tag: Int?
        let complete: @Sendable (ListenStatus) -> Void
    }

    struct Write {
        let action: String
        let path: DatabasePath
        let data: JSONValue
        /// The hash a transaction's put carries (`h`), nil otherwise.
        let hash: String?
        let complete: @Sendable (WriteStatus) -> Void
    }

    weak var delegate: (any DatabaseConnectionDelegate)?
    private let lock = NSLock()
    private var storedListens: [Listen] = []
    private var storedWrites: [Write] = []
    private var storedUnlistens: [QuerySpec] = []
    private var storedInterrupted = false
    private var storedGets: [Get] = []
    private var storedPurges = 0

    struct Get {
        let query: QuerySpec
        let complete: @Sendable (GetResponse) -> Void
    }

    var gets: [Get] { lock.withLock { storedGets } }
    var purges: Int { lock.withLock { storedPurges } }

    var listens: [Listen] { lock.withLock { storedListens } }
    var writes: [Write] { lock.withLock { storedWrites } }
    var unlistens: [QuerySpec] { lock.withLock { storedUnlistens } }
    var interrupted: Bool { lock.withLock { storedInterrupted } }

    func resume() { lock.withLock { storedInterrupted = false } }
    func interrupt() { lock.withLock { storedInterrupted = true } }

    func listen(_ query: QuerySpec, tag: Int?, hash: String, onComplete: @escaping @Sendable (ListenStatus) -> Void) {
        lock.withLock { storedListens.append(Listen(query: query, tag: tag, complete: onComplete)) }
    }

    func unlisten(_ query: QuerySpec, tag: Int?) { lock.withLock { storedUnlistens.append(query) } }

    func get(_ query: QuerySpec, onComplete: @escaping @Sendable (GetResponse) -> Void) {
        lock.withLock { storedGets.append(Get(query: query, complete: onComplete)) }
    }

    func purgeOutstandingWrites() { lock.withLock { storedPurges += 1 } }

    func put(_ path: DatabasePath, _ data: JSONValue, hash: String?, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        record("p", path, data, onComplete, hash: hash)
    }

    func merge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        record("m", path, .object(data), onComplete)
    }

    func onDisconnectPut(_ path: DatabasePath, _ data: JSONValue, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        record("o", path, data, onComplete)
    }

    func onDisconnectMerge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        record("om", path, .object(data), onComplete)
    }

    func onDisconnectCancel(_ path: DatabasePath, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        record("oc", path, .null, onComplete)
    }

    private func record(_ action: String, _ path: DatabasePath, _ data: JSONValue, _ complete: @escaping @Sendable (WriteStatus) -> Void, hash: String? = nil) {
        lock.withLock { storedWrites.append(Write(action: action, path: path, data: data, hash: hash, complete: complete)) }
    }

    // MARK: Scripting

    func connect(serverTimeOffset: Double = 0) { delegate?.connectionDidConnect(serverTimeOffset: serverTimeOffset) }
    func disconnect() { delegate?.connectionDidDisconnect() }

    /// Server data at `path` from JSON text: an overwrite, or a merge of relative paths.
    func push(_ path: String, _ json: String, merge: Bool = false, tag: Int? = nil) throws {
        let data = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        delegate?.connectionDidReceiveData(at: DatabasePath(unvalidated: path), data, isMerge: merge, tag: tag)
    }
}
