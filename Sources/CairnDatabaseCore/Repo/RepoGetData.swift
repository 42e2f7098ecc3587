import Foundation

/// Why `getData` could not answer: the client is offline (no connection within the wait) and the data is not
/// complete locally, or the server refused the get and the data is not complete locally either.
package enum GetDataFailure: Error, Equatable {
    case offline
    case failed(status: String, reason: String?)
}

/// A `getData` request waiting for the connection.
struct WaitingGet {
    let query: QuerySpec
    let completion: (Result<Node, GetDataFailure>) -> Void
}

/// `getData` (Firebase's `FRepo getData:`): data that is complete locally (as a new `value` observer would see it at
/// once) answers immediately; otherwise the server is asked (`g`), waiting up to ``getDataWait`` for a connection.
/// The server's answer is applied as server data and returned. When the server refuses or no connection comes, the
/// local data answers if it became complete meanwhile; when no connection comes, whatever the cache on disk holds
/// for the query answers, even incomplete (Firebase's rule); otherwise the request fails. `.info` paths answer
/// locally.
///
/// ```swift
/// repo.getValue(QuerySpec(path: path)) { result in ... }   // .success(node) or .failure(.offline)
/// ```
extension Repo {
    package func getValue(_ query: QuerySpec, completion: @escaping (Result<Node, GetDataFailure>) -> Void) {
        onQueue { [self] in
            if Repo.isInfo(query.path) { return completion(.success(infoData.child(query.path.popFront))) }
            if let local = syncTree.completeValue(for: query) { return completion(.success(local)) }
            guard connection != nil else { return answerFromCache(query, or: .offline, completion) }
            if isConnected { return sendGet(query, completion) }
            let number = nextGetNumber
            nextGetNumber += 1
            waitingGets[number] = WaitingGet(query: query, completion: completion)
            queue.asyncAfter(deadline: .now() + getDataWait) { [weak self] in
                guard let self, let waiting = self.waitingGets.removeValue(forKey: number) else { return }
                self.answerFromCache(waiting.query, or: .offline, waiting.completion)
            }
        }
    }

    /// Sends the gets that waited for the connection, in the order they were made.
    func sendWaitingGets() {
        let waiting = waitingGets.sorted { $0.key < $1.key }.map(\.value)
        waitingGets = [:]
        for get in waiting { sendGet(get.query, get.completion) }
    }

    private func sendGet(_ query: QuerySpec, _ completion: @escaping (Result<Node, GetDataFailure>) -> Void) {
        nonisolated(unsafe) let completion = completion
        DatabaseLog.log("g \(query)")
        connection?.get(query.forListening) { [weak self] response in
            guard let self else { return }
            DatabaseLog.log("g \(query): \(response)")
            self.onQueue {
                switch response {
                case .data(let json):
                    let node = (try? Node(json: json)) ?? .empty
                    if query.params.loadsAllData {
                        self.deliver(self.syncTree.applyServerOverwrite(query.path, node))
                    } else if let tag = self.syncTree.tag(for: query) {
                        self.deliver(self.syncTree.applyTaggedQueryOverwrite(query.path, node, tag: tag))
                    }
                    completion(.success(node))
                case .failed(let status, let reason):
                    self.answerFromCache(query, or: .failed(status: status, reason: reason), completion)
                }
            }
        }
    }

    private func answerFromCache(_ query: QuerySpec, or failure: GetDataFailure, _ completion: (Result<Node, GetDataFailure>) -> Void) {
        if let local = syncTree.completeValue(for: query) { return completion(.success(local)) }
        if failure == .offline, let persisted = syncTree.persistedValue(for: query) { return completion(.success(persisted)) }
        completion(.failure(failure))
    }
}
