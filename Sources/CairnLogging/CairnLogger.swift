import Logging

/// One component's logger: lines go through swift-log's `Logger` with the component's `cairn.*` label, so a
/// program sees them through whatever handler it bootstrapped (`LoggingSystem.bootstrap`), and on standard error
/// (swift-log's default handler) when it bootstrapped none.
///
/// Levels follow Firebase's logger: ``notice(_:)``, ``warning(_:)`` and ``error(_:)`` are always written;
/// ``debug(_:)`` only while its product's switch is on (`Firestore.enableLogging(true)`,
/// `Database.setLoggingEnabled(true)`, see ``LogSwitch``), and its message is not even built otherwise. Each line
/// is handed to a `Logger` whose level is the switch's: `.debug` while it is on, `.notice` otherwise.
///
/// What may be logged: never a credential (an auth token, an `Authorization` header); at notice and above never
/// a value a user stored, only names (document paths, target ids, counts and error codes); document names, not
/// their values, at debug.
///
/// ```swift
/// CairnLogger.firestoreRemote.debug("watch target 2 added: cities")
/// // with a StreamLogHandler: 2026-11-26T03:00:00+0000 debug cairn.firestore.remote : watch target 2 added: cities
/// ```
package struct CairnLogger: Sendable {
    /// The swift-log label: `cairn.<product>[.<component>]`.
    package let label: String
    /// The switch that turns this logger's debug lines on.
    package let logSwitch: LogSwitch

    package init(label: String, logSwitch: LogSwitch) {
        self.label = label
        self.logSwitch = logSwitch
    }

    /// A line for someone debugging Cairn: written only while the product's logging is enabled.
    package func debug(_ message: @autoclosure () -> String) {
        guard logSwitch.isDebugEnabled else { return }
        write(.debug, message())
    }

    /// Something a person running the program may want to know (a cache recovered, a write rejected).
    package func notice(_ message: @autoclosure () -> String) {
        write(.notice, message())
    }

    /// Something went wrong and Cairn carries on (a cache that could not be opened, a failed clean-up).
    package func warning(_ message: @autoclosure () -> String) {
        write(.warning, message())
    }

    /// Something went wrong that loses work or data.
    package func error(_ message: @autoclosure () -> String) {
        write(.error, message())
    }

    private func write(_ level: Logger.Level, _ message: String) {
        // A Logger per line: the handler comes from the LoggingSystem as bootstrapped now, so a program that
        // bootstraps after Cairn started still gets every later line.
        var logger = Logger(label: label)
        logger.logLevel = logSwitch.isDebugEnabled ? .debug : .notice
        logger.log(level: level, "\(message)", source: source)
    }

    /// The product a line comes from (swift-log's `source`, `[Cairn]` or `[CairnDatabase]` in its default
    /// handler's output), instead of this module's name, which every line would otherwise carry.
    private var source: String { label.hasPrefix("cairn.database") ? "CairnDatabase" : "Cairn" }
}

extension CairnLogger {
    /// The Firestore API (`Firestore`: instances, settings, logging switched on or off).
    package static let firestore = CairnLogger(label: "cairn.firestore", logSwitch: .firestore)
    /// The client core's sync engine: listens, limbo resolution, writes acknowledged or rejected, users.
    package static let firestoreSync = CairnLogger(label: "cairn.firestore.sync", logSwitch: .firestore)
    /// The remote store: network enabled or disabled, online state, watch targets, the write pipeline.
    package static let firestoreRemote = CairnLogger(label: "cairn.firestore.remote", logSwitch: .firestore)
    /// The gRPC transport: Listen and Write streams opened and closed, unary calls that failed.
    package static let firestoreGRPC = CairnLogger(label: "cairn.firestore.grpc", logSwitch: .firestore)
    /// The credentials providers: access tokens fetched and refreshed, users changed (never a token or a key).
    package static let firestoreAuth = CairnLogger(label: "cairn.firestore.auth", logSwitch: .firestore)
    /// The local cache: opened, recovered, compacted, garbage-collected.
    package static let firestoreLocalStore = CairnLogger(label: "cairn.firestore.localstore", logSwitch: .firestore)
    /// The Realtime Database client (`Database.setLoggingEnabled`): requests, answers, pushes, connection changes,
    /// and its cache.
    package static let database = CairnLogger(label: "cairn.database", logSwitch: .database)
}
