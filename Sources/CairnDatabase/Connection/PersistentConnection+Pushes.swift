import CairnDatabaseCore

/// What the server sends unasked (`{"a": action, "b": body}`): data `d`, merges `m`, range merges `rm`, a revoked
/// listen `c`, revoked auth `ac`, security-rules debug output `sd`. A push with a missing or invalid field is
/// logged and dropped.
///
/// Range merges: Firebase's server sends `rm` only to clients that listen with a compound hash (`ch`), which
/// Cairn never sends. One that arrives anyway is applied range by range: a range without start and end replaces
/// the data at the path; any other range merges in the children its node holds (children the server removed
/// inside the range are not removed: the client does not know them here; the next listen answer corrects it).
extension PersistentConnection {
    func handlePush(_ action: String, _ body: JSONValue) {
        guard let fields = body.objectValue else {
            return log("dropping a push (\(action.prefix(20))) whose body is not an object")
        }
        switch action {
        case WirePush.data, WirePush.merge:
            guard let path = Self.path(fields["p"]), let data = fields["d"], let tag = Self.tag(fields["t"]) else {
                return log("dropping a malformed \(action) push")
            }
            let isMerge = action == WirePush.merge
            if isMerge {
                guard let children = data.objectValue else { return log("dropping a merge push that is not an object") }
                if children.isEmpty { return }
            }
            delegate?.connectionDidReceiveData(at: path, data, isMerge: isMerge, tag: tag)
        case WirePush.rangeMerge:
            guard let path = Self.path(fields["p"]), case .array(let ranges)? = fields["d"], let tag = Self.tag(fields["t"]) else {
                return log("dropping a malformed range merge push")
            }
            for range in ranges { applyRangeMerge(range, at: path, tag: tag) }
        case WirePush.listenRevoked:
            guard let path = Self.path(fields["p"]) else { return log("dropping a malformed listen revocation") }
            revokeListens(at: path)
        case WirePush.authRevoked:
            let status = fields["s"]?.wireString ?? "unknown"
            warn("Auth token revoked: \(status) (\(fields["d"]?.wireString ?? "no reason given"))")
            authToken = nil
            dropTransport(reason: "auth revoked")
        case WirePush.securityDebug:
            for line in (fields["msg"]?.wireString ?? "").split(separator: "\n") { warn(String(line)) }
        case WirePush.appCheckRevoked:
            log("ignoring an App Check revocation (Cairn sends no App Check token)")
        default:
            log("ignoring the unknown push \"\(action.prefix(20))\"")
        }
    }

    private func applyRangeMerge(_ range: JSONValue, at path: DatabasePath, tag: Int?) {
        guard let fields = range.objectValue, let node = fields["m"] else {
            return log("dropping a malformed range")
        }
        if fields["s"] == nil && fields["e"] == nil {
            delegate?.connectionDidReceiveData(at: path, node, isMerge: false, tag: tag)
        } else if let children = node.objectValue, !children.isEmpty {
            delegate?.connectionDidReceiveData(at: path, .object(children), isMerge: true, tag: tag)
        }
    }

    /// `c`: the server stopped the listens at `path` (permission revoked); each fails with `permission_denied`,
    /// which cancels its registrations in the repo.
    private func revokeListens(at path: DatabasePath) {
        let revoked = listens.values.filter { $0.query.path == path }.sorted { $0.number < $1.number }
        for listen in revoked {
            listens.removeValue(forKey: listen.query.key)
            listen.onComplete(.failed(WireStatus.permissionDenied))
        }
    }

    /// A valid path from the server, nil otherwise.
    private static func path(_ value: JSONValue?) -> DatabasePath? {
        guard let string = value?.wireString else { return nil }
        return try? DatabasePath(string)
    }

    /// The tag of a push: absent (`.some(nil)`), or an integer from 1 to 2^31 - 1; nil when present and invalid.
    private static func tag(_ value: JSONValue?) -> Int?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .int(let tag)? where tag >= 1 && tag <= Int64(Int32.max): return .some(Int(tag))
        default: return nil
        }
    }
}
