import Foundation

/// One database's client (Firebase's `Repo`): the sync tree, the `.info` tree, the pending user writes and the
/// connection, all on one serial queue. Every entry point is asynchronous on that queue; events leave through
/// `deliver` (on the queue, in order) and write completions through `complete`, always after the events that the
/// outcome raised.
///
/// ```swift
/// let repo = Repo(connection: scripted, deliver: { events in ... })
/// repo.addEventRegistration(observer, for: QuerySpec(path: path))
/// repo.setValue(at: path, node) { error in ... }       // optimistic events now, the completion on the ack
/// ```
package final class Repo: @unchecked Sendable {
    package let queue = DispatchQueue(label: "cairn.database.repo")
    let connection: (any DatabaseConnection)?
    let deliver: ([DatabaseEvent]) -> Void
    private(set) var syncTree: SyncTree!
    private var infoTree: SyncTree!
    private let listens: ConnectionListenProvider
    private(set) var infoData = Node.empty
    private var serverTimeOffset = 0.0
    var nextWriteId = 1
    /// The onDisconnect operations the server accepted, applied locally when the connection drops.
    var onDisconnect = OnDisconnectOperations()
    private let clock: () -> Date
    /// Whether the connection's handshake arrived and it has not dropped since.
    private(set) var isConnected = false
    /// `getData` requests waiting for the connection, by number, and how long they wait (Firebase: 3 s).
    var waitingGets: [Int: WaitingGet] = [:]
    var nextGetNumber = 1
    let getDataWait: TimeInterval
    /// What to do with the answer to each request the server has not answered yet (writes, transaction puts,
    /// onDisconnect requests), by request number; ``purgeOutstandingWrites()`` cancels them all.
    var outstanding: [Int: (WriteStatus) -> Void] = [:]
    var nextRequest = 1
    /// The transactions whose put the server has not answered yet, so that a `setValue` or `updateChildValues`
    /// overlapping one marks it to abort with `set`.
    var runningTransactions: [TransactionRun] = []

    /// `connection` nil keeps the repo offline: writes stay pending and listens see only local data. `persistence`
    /// is the cache on disk (nil: memory only); the pending writes it holds from an earlier session are applied and
    /// sent again, in order. `getDataWait` is how long `getData` waits for a connection before it answers from the
    /// cache or fails.
    package init(connection: (any DatabaseConnection)?, persistence: PersistenceManager? = nil, clock: @escaping () -> Date = Date.init,
                 getDataWait: TimeInterval = 3, deliver: @escaping ([DatabaseEvent]) -> Void) {
        self.connection = connection
        self.deliver = deliver
        self.clock = clock
        self.getDataWait = getDataWait
        listens = ConnectionListenProvider(connection: connection)
        listens.repo = self
        queue.sync {
            syncTree = SyncTree(listenProvider: listens, persistence: persistence)
            infoTree = SyncTree(listenProvider: InfoListenProvider())
            updateInfo(Repo.connectedKey, Node(leaf: .bool(false)))
        }
        connection?.delegate = self
        queue.sync { restoreWrites() }
        connection?.resume()
    }

    package static let infoKey = ".info"
    package static let connectedKey = "connected"
    package static let serverTimeOffsetKey = "serverTimeOffset"

    /// True for paths under `/.info`, which only this client answers.
    package static func isInfo(_ path: DatabasePath) -> Bool { path.front == infoKey }

    // MARK: Registrations

    package func addEventRegistration(_ registration: any EventRegistration, for query: QuerySpec) {
        onQueue { [self] in
            if Repo.isInfo(query.path) {
                var events = infoTree.addEventRegistration(registration, for: query)
                let relative = DatabasePath(keys: Array(query.path.keys.dropFirst()))
                let data = infoData.child(relative)
                if !data.isEmpty { events += infoTree.applyServerOverwrite(query.path, data) }
                deliver(events)
            } else {
                deliver(syncTree.addEventRegistration(registration, for: query))
            }
        }
    }

    /// Removes `registration` (every registration of the query when nil).
    package func removeEventRegistration(_ registration: (any EventRegistration)?, for query: QuerySpec) {
        onQueue { [self] in
            let tree: SyncTree = Repo.isInfo(query.path) ? infoTree : syncTree
            deliver(tree.removeEventRegistration(registration, for: query))
        }
    }

    // MARK: User writes

    /// Overwrites `path` with `node` (server values resolved locally for the events, sent unresolved).
    package func setValue(at path: DatabasePath, _ node: Node, completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            let existing = syncTree.calcCompleteEventCache(path) ?? .empty
            let resolved = ServerValues.resolve(node, existing: existing, timestamp: serverTimestamp())
            let writeId = nextWriteId
            nextWriteId += 1
            syncTree.persistence?.saveUserOverwrite(path, node, writeId: writeId)
            deliver(syncTree.applyUserOverwrite(path, resolved, writeId: writeId))
            sendOverwrite(writeId, path, node, completion)
            abortTransactions(overlapping: path)
        }
    }

    /// Merges `children` (paths relative to `path`, and their nodes) into `path`; an empty update completes at once.
    package func update(at path: DatabasePath, _ children: [(DatabasePath, Node)], completion: @escaping @Sendable (WriteStatus) -> Void) {
        onQueue { [self] in
            guard !children.isEmpty else { return completion(.ok) }
            let timestamp = serverTimestamp()
            let resolved = children.map { relative, node in
                let existing = syncTree.calcCompleteEventCache(path.child(relative)) ?? .empty
                return (relative, ServerValues.resolve(node, existing: existing, timestamp: timestamp))
            }
            let writeId = nextWriteId
            nextWriteId += 1
            syncTree.persistence?.saveUserMerge(path, children, writeId: writeId)
            deliver(syncTree.applyUserMerge(path, resolved, writeId: writeId))
            sendMerge(writeId, path, children, completion)
            for (relative, _) in children { abortTransactions(overlapping: path.child(relative)) }
        }
    }

    private func sendOverwrite(_ writeId: Int, _ path: DatabasePath, _ node: Node, _ completion: @escaping @Sendable (WriteStatus) -> Void) {
        track("p \(path)", { connection?.put(path, node.exportJSON(), hash: nil, onComplete: $0) }) { [self] status in
            finishWrite(writeId, status, completion)
        }
    }

    private func sendMerge(_ writeId: Int, _ path: DatabasePath, _ children: [(DatabasePath, Node)], _ completion: @escaping @Sendable (WriteStatus) -> Void) {
        var wire: [String: JSONValue] = [:]
        for (relative, node) in children { wire[relative.keys.joined(separator: "/")] = node.exportJSON() }
        track("m \(path)", { connection?.merge(path, wire, onComplete: $0) }) { [self] status in
            finishWrite(writeId, status, completion)
        }
    }

    /// Applies and sends again, in write order, the pending writes an earlier session left in the cache, with server
    /// values resolved anew (Firebase's `restoreWrites`). Their completion blocks went with that session: one line
    /// says so, and a rejection is logged.
    private func restoreWrites() {
        guard let writes = syncTree.persistence?.pendingWrites, !writes.isEmpty else { return }
        DatabaseLog.always("\(writes.count) pending write(s) of an earlier session were restored from the cache and are sent again; "
            + "their completion blocks were lost with that session")
        let timestamp = serverTimestamp()
        for write in writes {
            let writeId = Int(write.id)
            nextWriteId = max(nextWriteId, writeId + 1)
            let completion: @Sendable (WriteStatus) -> Void = { [path = write.path] status in
                if status != .ok { DatabaseLog.always("a restored write at \(path) failed: \(status)") }
            }
            if let node = write.overwrite {
                let existing = syncTree.calcCompleteEventCache(write.path) ?? .empty
                deliver(syncTree.applyUserOverwrite(write.path, ServerValues.resolve(node, existing: existing, timestamp: timestamp), writeId: writeId))
                sendOverwrite(writeId, write.path, node, completion)
            } else if let children = write.merge {
                let resolved = children.map { relative, node in
                    let existing = syncTree.calcCompleteEventCache(write.path.child(relative)) ?? .empty
                    return (relative, ServerValues.resolve(node, existing: existing, timestamp: timestamp))
                }
                deliver(syncTree.applyUserMerge(write.path, resolved, writeId: writeId))
                sendMerge(writeId, write.path, children, completion)
            }
        }
    }

    /// An ack keeps the server's data showing through; a rejection reverts the write (reverting events).
    private func finishWrite(_ writeId: Int, _ status: WriteStatus, _ completion: @Sendable (WriteStatus) -> Void) {
        deliver(syncTree.ackUserWrite(writeId, revert: status != .ok))
        completion(status)
    }

    /// Sends a request (`name` for the log) with `send`; its answer runs `handler` on the queue, unless the request
    /// was purged.
    func track(_ name: String, _ send: (@escaping @Sendable (WriteStatus) -> Void) -> Void, _ handler: @escaping (WriteStatus) -> Void) {
        let number = nextRequest
        nextRequest += 1
        outstanding[number] = handler
        DatabaseLog.log(name)
        send { [weak self] status in
            guard let self else { return }
            DatabaseLog.log("\(name): \(status)")
            self.onQueue { self.outstanding.removeValue(forKey: number)?(status) }
        }
    }

    /// Cancels every request the server has not answered (Firebase's `purgeOutstandingWrites`): the pending writes
    /// are reverted (reverting events), then each write, transaction and onDisconnect request completes with
    /// `write_canceled`, in the order they were made. Answers that still arrive for them are ignored.
    package func purgeOutstandingWrites() {
        onQueue { [self] in
            DatabaseLog.log("purging outstanding writes")
            deliver(syncTree.removeAllWrites())
            let cancelled = outstanding.sorted { $0.key < $1.key }.map(\.value)
            outstanding = [:]
            connection?.purgeOutstandingWrites()
            for handler in cancelled { handler(.failed(status: "write_canceled", reason: nil)) }
        }
    }

    // MARK: Connection state

    package func goOffline() { onQueue { [self] in connection?.interrupt() } }

    /// Closes the cache on disk once everything queued so far ran (the app was deleted); the repo goes on in memory.
    package func closePersistence() { queue.sync { syncTree.persistence?.close() } }
    package func goOnline() { onQueue { [self] in connection?.resume() } }

    /// Runs `body` on the queue, after everything queued before it. The repo's state is only touched there.
    func onQueue(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body
        queue.async { body() }
    }

    /// Waits for everything queued so far, then runs `body` on the queue.
    package func sync<T>(_ body: () -> T) -> T { queue.sync(execute: body) }

    func serverTimestamp() -> Int64 { ServerValues.timestamp(offset: serverTimeOffset, now: clock()) }

    private func updateInfo(_ key: String, _ node: Node) {
        infoData = infoData.updateImmediateChild(key, node)
        deliver(infoTree.applyServerOverwrite(DatabasePath(keys: [Repo.infoKey, key]), node))
    }

    fileprivate func applyListenStatus(_ status: ListenStatus, _ onComplete: @escaping (ListenStatus) -> [DatabaseEvent]) {
        onQueue { [self] in deliver(onComplete(status)) }
    }
}

extension Repo: DatabaseConnectionDelegate {
    package func connectionDidConnect(serverTimeOffset offset: Double) {
        onQueue { [self] in
            DatabaseLog.log("connected, server time offset \(offset) ms")
            serverTimeOffset = offset
            isConnected = true
            updateInfo(Repo.serverTimeOffsetKey, Node(leaf: .double(offset)))
            updateInfo(Repo.connectedKey, Node(leaf: .bool(true)))
            sendWaitingGets()
        }
    }

    package func connectionDidDisconnect() {
        onQueue { [self] in
            DatabaseLog.log("disconnected")
            isConnected = false
            updateInfo(Repo.connectedKey, Node(leaf: .bool(false)))
            runOnDisconnectOperations()
        }
    }

    package func connectionDidReceiveData(at path: DatabasePath, _ data: JSONValue, isMerge: Bool, tag: Int?) {
        onQueue { [self] in
            DatabaseLog.log("\(isMerge ? "merge" : "data") \(path)\(tag.map { " tag \($0)" } ?? "")")
            let events: [DatabaseEvent]
            if isMerge {
                var children: [(DatabasePath, Node)] = []
                for (key, value) in data.objectValue ?? [:] {
                    guard let node = try? Node(json: value) else { continue }
                    children.append((DatabasePath(unvalidated: key), node))
                }
                events = tag.map { syncTree.applyTaggedQueryMerge(path, children, tag: $0) }
                    ?? syncTree.applyServerMerge(path, children)
            } else {
                let node = (try? Node(json: data)) ?? .empty
                events = tag.map { syncTree.applyTaggedQueryOverwrite(path, node, tag: $0) }
                    ?? syncTree.applyServerOverwrite(path, node)
            }
            deliver(events)
        }
    }
}

/// Starts and stops the sync tree's listens on the connection (nothing without one).
private final class ConnectionListenProvider: ListenProvider {
    let connection: (any DatabaseConnection)?
    weak var repo: Repo?

    init(connection: (any DatabaseConnection)?) { self.connection = connection }

    func startListening(_ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [DatabaseEvent]) -> [DatabaseEvent] {
        nonisolated(unsafe) let onComplete = onComplete
        DatabaseLog.log("listen \(query)\(tag.map { " tag \($0)" } ?? "")")
        connection?.listen(query, tag: tag, hash: hash()) { [weak repo = self.repo] status in
            DatabaseLog.log("listen \(query): \(status)")
            repo?.applyListenStatus(status, onComplete)
        }
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {
        DatabaseLog.log("unlisten \(query)\(tag.map { " tag \($0)" } ?? "")")
        connection?.unlisten(query, tag: tag)
    }
}

/// `.info` paths are answered locally: the repo writes their values as server data.
private final class InfoListenProvider: ListenProvider {
    func startListening(_ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [DatabaseEvent]) -> [DatabaseEvent] { [] }
    func stopListening(_ query: QuerySpec, tag: Int?) {}
}
