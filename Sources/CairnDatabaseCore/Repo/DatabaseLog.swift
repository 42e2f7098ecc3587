import Foundation
import Synchronization

/// Debug logging (Firebase's `Database.setLoggingEnabled`): off by default; when on, the repo writes one line per
/// request it sends (listens, gets, writes, onDisconnect requests), per answer, per server push and per connection
/// change, `[CairnDatabase] <message>`, to standard error (a test may replace the sink).
///
/// ```swift
/// DatabaseLog.isEnabled = true     // [CairnDatabase] p /scores/ada
/// ```
package enum DatabaseLog {
    private static let enabled = Mutex(false)

    /// Receives each line; standard error unless a test replaces it.
    package static let sink = Mutex<@Sendable (String) -> Void>({ message in
        FileHandle.standardError.write(Data("[CairnDatabase] \(message)\n".utf8))
    })

    package static var isEnabled: Bool {
        get { enabled.withLock { $0 } }
        set { enabled.withLock { $0 = newValue } }
    }

    /// Writes `message` when logging is on (it is not built otherwise).
    package static func log(_ message: @autoclosure () -> String) {
        guard isEnabled else { return }
        let deliver = sink.withLock { $0 }
        deliver(message())
    }

    /// Receives each line of ``always(_:)``; standard error unless a test replaces it.
    package static let warningSink = Mutex<@Sendable (String) -> Void>({ message in
        FileHandle.standardError.write(Data("[CairnDatabase] \(message)\n".utf8))
    })

    /// Writes `message` whether logging is on or not: for what a person must know (a cache that failed, was
    /// recovered or is in use elsewhere, completion blocks lost with the previous session).
    package static func always(_ message: String) {
        let deliver = warningSink.withLock { $0 }
        deliver(message)
    }
}
