import CairnApp

/// Firestore's errors on the shared unhandled-error path (module `CairnApp`, used by both products).
extension UnhandledErrors {
    /// Reports `error`, which nobody asked to receive.
    package static func report(_ error: FirestoreErrorCode) {
        report(error.message)
    }
}
