import CairnModel

/// The cache-wide globals: the last remote snapshot version, the highest target id, each user's write-stream
/// token and the session token (Firebase's `TargetGlobal`, `MutationQueue.last_stream_token` and
/// `GlobalsCache`). Each setter appends one `globalsChanged` event holding all of them.
///
/// ```swift
/// try store.setLastRemoteSnapshotVersion(remoteEvent.snapshotVersion)
/// try store.setWriteStreamToken(response.streamToken, forUser: user.uid)
/// store.writeStreamToken(forUser: user.uid)    // the token, also after a restart
/// ```
extension LocalStore {
    /// The snapshot version of the last remote event applied; ``TargetData/noSnapshotVersion`` before the first.
    package var lastRemoteSnapshotVersion: Timestamp { targets.globals.lastRemoteSnapshotVersion }

    /// Records the snapshot version of a remote event. Nothing is written when it is the current one.
    ///
    /// - Throws: `invalidArgument` when `version` is older than the current one: the watch stream never goes
    ///   back in time (Firebase asserts "Watch stream reverted to previous snapshot").
    package func setLastRemoteSnapshotVersion(_ version: Timestamp) throws {
        try checkOpen()
        let current = targets.globals.lastRemoteSnapshotVersion
        guard version >= current else {
            throw LocalStoreError(
                .invalidArgument,
                "the remote snapshot version cannot go back from \(current.seconds).\(current.nanoseconds)s "
                    + "to \(version.seconds).\(version.nanoseconds)s")
        }
        guard version != current else { return }
        try updateGlobals { $0.lastRemoteSnapshotVersion = version }
    }

    /// The largest target id allocated so far (0 before the first): removed targets' ids are never reused.
    package var highestTargetID: Int32 { targets.globals.highestTargetID }

    /// The token of the user's last write-stream response, or `nil` when there is none.
    package func writeStreamToken(forUser user: String) -> [UInt8]? { targets.globals.writeStreamTokens[user] }

    /// Records the token of the user's last write-stream response; an empty token clears it.
    package func setWriteStreamToken(_ token: [UInt8], forUser user: String) throws {
        try checkOpen()
        guard targets.globals.writeStreamTokens[user] ?? [] != token else { return }
        try updateGlobals { $0.writeStreamTokens[user] = token.isEmpty ? nil : token }
    }

    /// The session token the backend sent last; empty when none.
    package var sessionToken: [UInt8] { targets.globals.sessionToken }

    /// Records the backend's session token.
    package func setSessionToken(_ token: [UInt8]) throws {
        try checkOpen()
        guard targets.globals.sessionToken != token else { return }
        try updateGlobals { $0.sessionToken = token }
    }

    private func updateGlobals(_ change: (inout TargetGlobals) -> Void) throws {
        var globals = targets.globals
        change(&globals)
        try commitTargetEvents([.globalsChanged(globals)])
    }
}
