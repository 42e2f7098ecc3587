import Foundation
import Synchronization

/// Where errors go that no caller can receive, in both products: a write or network call made without a completion
/// handler, a listener or observer without an error block, or a getter that cannot throw. Firebase raises an
/// exception for invalid input and logs failed writes; Cairn never crashes and never drops the error silently: it
/// writes one line, `Cairn: <message>`, to standard error.
///
/// Pass a completion handler (or use the `async` form) to handle the error instead:
///
/// ```swift
/// db.document("rooms/a").setData(["when": URL(fileURLWithPath: "/")])   // stderr: Cairn: Unsupported type: URL ...
/// db.document("rooms/a").setData(["when": Date()]) { error in
///     if let error { print("not written: \(error)") }
/// }
/// ```
package enum UnhandledErrors {
    /// Receives each message; standard error unless a test replaces it.
    package static let sink = Mutex<@Sendable (String) -> Void>({ message in
        FileHandle.standardError.write(Data("Cairn: \(message)\n".utf8))
    })

    /// Reports `message`, an error nobody asked to receive.
    package static func report(_ message: String) {
        let deliver = sink.withLock { $0 }
        deliver(message)
    }
}
