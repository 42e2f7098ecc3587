import CairnDatabaseCore

extension DatabaseLog {
    /// A warning Firebase always prints (a server shutdown or error, failed authentication, security-rules debug
    /// output): written whether or not debug logging is on.
    static func warn(_ message: String) {
        always(message)
    }
}
