/// A Firestore database: a project id and a database id (`(default)` unless named).
package struct DatabaseID: Sendable, Hashable, Comparable, CustomStringConvertible {
    package static let defaultDatabase = "(default)"

    package var projectID: String
    package var databaseID: String

    package init(projectID: String, databaseID: String = DatabaseID.defaultDatabase) {
        self.projectID = projectID
        self.databaseID = databaseID
    }

    package static func < (a: DatabaseID, b: DatabaseID) -> Bool {
        (a.projectID, a.databaseID) < (b.projectID, b.databaseID)
    }

    /// `projects/{project}/databases/{database}`.
    package var description: String { "projects/\(projectID)/databases/\(databaseID)" }
}
