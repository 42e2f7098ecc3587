import Synchronization

/// A product's debug-logging switch: `Firestore.enableLogging(_:)` turns ``firestore`` on or off,
/// `Database.setLoggingEnabled(_:)` ``database``. Both are off at start, as in Firebase, and process-wide (class
/// methods in Firebase's API): every instance of the product and every component logger (``CairnLogger``) reads
/// the same switch.
///
/// ```swift
/// LogSwitch.firestore.isDebugEnabled = true     // what Firestore.enableLogging(true) does
/// ```
package final class LogSwitch: Sendable {
    /// Cloud Firestore's switch (`cairn.firestore.*` loggers).
    package static let firestore = LogSwitch()
    /// The Realtime Database's switch (`cairn.database*` loggers).
    package static let database = LogSwitch()

    private let enabled = Atomic(false)

    private init() {}

    /// True while debug lines are written (Firebase's `LogIsDebugEnabled()`).
    package var isDebugEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }
}
