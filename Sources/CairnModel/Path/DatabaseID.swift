/// A Firestore database: a project id and a database id (`(default)` unless named).
public struct DatabaseID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let defaultDatabase = "(default)"

    public var projectID: String
    public var databaseID: String

    public init(projectID: String, databaseID: String = DatabaseID.defaultDatabase) {
        self.projectID = projectID
        self.databaseID = databaseID
    }

    public static func < (a: DatabaseID, b: DatabaseID) -> Bool {
        (a.projectID, a.databaseID) < (b.projectID, b.databaseID)
    }

    /// `projects/{project}/databases/{database}`.
    public var description: String { "projects/\(projectID)/databases/\(databaseID)" }
}
