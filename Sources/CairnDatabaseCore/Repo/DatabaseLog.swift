import CairnLogging
import Synchronization

/// The Realtime Database's log (Firebase's `Database.setLoggingEnabled`), through swift-log's `cairn.database`
/// logger (``CairnLogger/database``): debug lines, off by default, one per request the repo sends (listens, gets,
/// writes, onDisconnect requests), per answer, per server push and per connection change; and warnings, always
/// written, for what a person must know (a cache that failed, was recovered or is in use elsewhere, completion
/// blocks lost with the previous session). A program sees them through the swift-log handler it bootstrapped, or
/// on standard error with swift-log's default one. A test may replace either sink to read the lines.
///
/// ```swift
/// DatabaseLog.isEnabled = true     // debug cairn.database : p /scores/ada
/// ```
package enum DatabaseLog {
    /// Receives each debug line while logging is on; `cairn.database` at `.debug` unless a test replaces it.
    package static let sink = Mutex<@Sendable (String) -> Void>({ message in
        CairnLogger.database.debug(message)
    })

    /// The switch of `Database.setLoggingEnabled` (``LogSwitch/database``).
    package static var isEnabled: Bool {
        get { LogSwitch.database.isDebugEnabled }
        set { LogSwitch.database.isDebugEnabled = newValue }
    }

    /// Writes `message` when logging is on (it is not built otherwise).
    package static func log(_ message: @autoclosure () -> String) {
        guard isEnabled else { return }
        let deliver = sink.withLock { $0 }
        deliver(message())
    }

    /// Receives each line of ``always(_:)``; `cairn.database` at `.warning` unless a test replaces it.
    package static let warningSink = Mutex<@Sendable (String) -> Void>({ message in
        CairnLogger.database.warning(message)
    })

    /// Writes `message` whether logging is on or not: for what a person must know (a cache that failed, was
    /// recovered or is in use elsewhere, completion blocks lost with the previous session).
    package static func always(_ message: String) {
        let deliver = warningSink.withLock { $0 }
        deliver(message)
    }
}
