/// A query as the sync tree sees it: a path and its parameters (Firebase's `QueryContext`).
///
/// ```swift
/// let query = QuerySpec(path: try DatabasePath("scores"), params: try QueryParams().limited(toLast: 4))
/// query.identifier                 // {"l":4,"vf":"r"}
/// query.forListening.params.isDefault   // false; a load-all query would listen as the default query
/// ```
package struct QuerySpec: Equatable, Sendable, CustomStringConvertible {
    package let path: DatabasePath
    package let params: QueryParams

    package init(path: DatabasePath, params: QueryParams = QueryParams()) {
        self.path = path
        self.params = params
    }

    /// `default` or the parameters' wire JSON; a view's identity within its sync point.
    package var identifier: String { params.identifier }

    /// The path and identifier, unique in the sync tree (used to map tags to queries).
    package var key: String { path.description + "$" + identifier }

    /// The query that is listened to: a query that loads all data listens as the default query at its path.
    package var forListening: QuerySpec {
        params.loadsAllData && !params.isDefault ? QuerySpec(path: path) : self
    }

    package var description: String { "\(path) \(identifier)" }
}
