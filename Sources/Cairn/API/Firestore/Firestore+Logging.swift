import CairnLogging

extension Firestore {
    /// Turns Cloud Firestore's debug logging on or off for the whole process (Firebase's
    /// `+[FIRFirestore enableLogging:]`): `true` lowers every `cairn.firestore.*` logger to `.debug`, `false`
    /// brings them back to `.notice`, the default, at which only notices, warnings and errors are written.
    ///
    /// The lines go through swift-log (`import Logging`), one `Logger` per component: `cairn.firestore` (the API),
    /// `cairn.firestore.sync` (listens, limbo resolution, writes acknowledged or rejected),
    /// `cairn.firestore.remote` (network, online state, watch targets, the write pipeline),
    /// `cairn.firestore.grpc` (streams and calls) and `cairn.firestore.localstore` (the cache opened, recovered,
    /// compacted, garbage-collected). Without a handler of its own a program gets swift-log's default, standard
    /// error; to route the lines elsewhere, bootstrap a handler first:
    ///
    /// ```swift
    /// import Logging
    /// LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
    /// Firestore.enableLogging(true)
    /// // 2026-11-26T03:00:00+0000 debug cairn.firestore.remote : online state: online
    /// ```
    ///
    /// Debug lines name documents and targets, never the values stored in them; no line carries a credential.
    public static func enableLogging(_ logging: Bool) {
        LogSwitch.firestore.isDebugEnabled = logging
        if logging { CairnLogger.firestore.debug("debug logging enabled") }
    }
}
