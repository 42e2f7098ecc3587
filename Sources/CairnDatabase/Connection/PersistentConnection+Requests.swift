import CairnDatabaseCore

/// The requests the repo makes (`DatabaseConnection`), kept until answered so that they survive a reconnect:
/// listens `q`/`n`, gets `g`, puts and merges `p`/`m` (a put with a hash is a transaction's), onDisconnect
/// `o`/`om`/`oc`. While not connected they wait and go out in ``restoreState()``.
extension PersistentConnection {
    func listen(_ query: QuerySpec, tag: Int?, hash: String, onComplete: @escaping @Sendable (ListenStatus) -> Void) {
        queue.async { [self] in
            let listen = OutstandingListen(query: query, tag: tag, hash: hash, number: nextListenNumber, onComplete: onComplete)
            nextListenNumber += 1
            listens[query.key] = listen
            if phase == .connected { sendListen(listen) }
        }
    }

    func unlisten(_ query: QuerySpec, tag: Int?) {
        queue.async { [self] in
            guard listens.removeValue(forKey: query.key) != nil, phase == .connected else { return }
            var body: [String: JSONValue] = ["p": .string(query.path.description)]
            if let tag {
                body["q"] = .object(query.params.wireObject)
                body["t"] = .int(Int64(tag))
            }
            send(WireAction.unlisten, .object(body))
        }
    }

    func get(_ query: QuerySpec, onComplete: @escaping @Sendable (GetResponse) -> Void) {
        queue.async { [self] in
            let number = nextGetNumber
            nextGetNumber += 1
            gets[number] = OutstandingGet(query: query, onComplete: onComplete)
            if phase == .connected { sendGet(number) }
        }
    }

    func put(_ path: DatabasePath, _ data: JSONValue, hash: String?, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        var body: [String: JSONValue] = ["p": .string(path.description), "d": data]
        if let hash { body["h"] = .string(hash) }
        enqueuePut(WireAction.put, .object(body), isTransaction: hash != nil, onComplete)
    }

    func merge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        let body: JSONValue = .object(["p": .string(path.description), "d": .object(data)])
        enqueuePut(WireAction.merge, body, isTransaction: false, onComplete)
    }

    func onDisconnectPut(_ path: DatabasePath, _ data: JSONValue, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        onDisconnect(WireAction.onDisconnectPut, path, data, onComplete)
    }

    func onDisconnectMerge(_ path: DatabasePath, _ data: [String: JSONValue], onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        onDisconnect(WireAction.onDisconnectMerge, path, .object(data), onComplete)
    }

    func onDisconnectCancel(_ path: DatabasePath, onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        onDisconnect(WireAction.onDisconnectCancel, path, .null, onComplete)
    }

    /// Forgets the puts, merges and onDisconnect requests not yet answered; answers that still arrive are
    /// dropped (the repo completes the requests with `write_canceled` itself).
    func purgeOutstandingWrites() {
        queue.async { [self] in
            puts = [:]
            onDisconnectQueue = []
            heldPutAnswers = []
        }
    }

    // MARK: Sending

    /// After the hello (and `auth`): every listen, then the puts in order, the gets, the queued onDisconnects.
    func restoreState() {
        for listen in listens.values.sorted(by: { $0.number < $1.number }) { sendListen(listen) }
        for number in puts.keys.sorted() { sendPut(number) }
        for number in gets.keys.sorted() { sendGet(number) }
        let queued = onDisconnectQueue
        onDisconnectQueue = []
        for request in queued { sendOnDisconnect(request) }
    }

    private func sendListen(_ listen: OutstandingListen) {
        let body = listen.body
        listen.sent = true
        unansweredListens += 1
        send(WireAction.listen, body) { [self] status, data in
            if case .array(let warnings)? = data?.objectValue?["w"], warnings.contains(.string("no_index")) {
                let index = listen.query.params.wireObject["i"]?.wireString ?? ".priority"
                warn("Using an unspecified index. Your data will be downloaded and filtered on the client. Consider adding \".indexOn\": \"\(index)\" at \(listen.query.path) to your security rules for better performance")
            }
            if listens[listen.query.key] === listen {
                if status != WireStatus.ok { listens.removeValue(forKey: listen.query.key) }
                listen.onComplete(status == WireStatus.ok ? .ok : .failed(status))
            }
            unansweredListens -= 1
            if unansweredListens == 0 { releaseHeldPutAnswers() }
        }
    }

    private func enqueuePut(_ action: String, _ body: JSONValue, isTransaction: Bool, _ onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        queue.async { [self] in
            let number = nextPutNumber
            nextPutNumber += 1
            puts[number] = OutstandingPut(action: action, body: body, isTransaction: isTransaction, onComplete: onComplete)
            if phase == .connected { sendPut(number) }
        }
    }

    private func sendPut(_ number: Int) {
        guard let put = puts[number] else { return }
        put.sent = true
        send(put.action, put.body) { [self] status, data in
            guard puts[number] === put else { return }
            puts.removeValue(forKey: number)
            let result = Self.writeStatus(status, data)
            if unansweredListens == 0 {
                put.onComplete(result)
            } else {
                heldPutAnswers.append { put.onComplete(result) }
            }
        }
    }

    private func sendGet(_ number: Int) {
        guard let get = gets[number] else { return }
        send(WireAction.get, get.body) { [self] status, data in
            guard gets.removeValue(forKey: number) != nil else { return }
            get.onComplete(status == WireStatus.ok ? .data(data ?? .null) : .failed(status: status, reason: data?.wireString))
        }
    }

    private func onDisconnect(_ action: String, _ path: DatabasePath, _ data: JSONValue, _ onComplete: @escaping @Sendable (WriteStatus) -> Void) {
        let request = OnDisconnectRequest(action: action, body: .object(["p": .string(path.description), "d": data]), onComplete: onComplete)
        queue.async { [self] in
            if phase == .connected { sendOnDisconnect(request) } else { onDisconnectQueue.append(request) }
        }
    }

    private func sendOnDisconnect(_ request: OnDisconnectRequest) {
        send(request.action, request.body) { status, data in request.onComplete(Self.writeStatus(status, data)) }
    }

    static func writeStatus(_ status: String, _ data: JSONValue?) -> WriteStatus {
        status == WireStatus.ok ? .ok : .failed(status: status, reason: data?.wireString)
    }

    // MARK: Dropped connections

    /// Delivers the put answers that waited for listen answers.
    func releaseHeldPutAnswers() {
        let held = heldPutAnswers
        heldPutAnswers = []
        for answer in held { answer() }
    }

    /// After a drop: sent transaction puts fail with `disconnect` (in order); every other request is sent again
    /// on the next connection.
    func forgetSentRequests() {
        for number in puts.keys.sorted() {
            guard let put = puts[number], put.sent else { continue }
            if put.isTransaction {
                puts.removeValue(forKey: number)
                put.onComplete(.failed(status: "disconnect", reason: "Client was disconnected while running a transaction"))
            } else {
                put.sent = false
            }
        }
    }
}
