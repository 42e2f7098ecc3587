import CairnModel

extension Query {
    /// How log lines name a query: its path (or `*/group` for a collection group) and the number of filters and
    /// the limit, never the filter values, which are user data.
    ///
    /// ```swift
    /// Query(path: ResourcePath(segments: ["cities"])).logDescription   // "cities"
    /// ```
    package var logDescription: String {
        var text = collectionGroup.map { "\(path.segments.isEmpty ? "" : "\(path)/")*/\($0)" } ?? "\(path)"
        var details: [String] = []
        if !filters.isEmpty { details.append("\(filters.count) filter(s)") }
        if let limit { details.append("limit \(limit)") }
        if !details.isEmpty { text += " (\(details.joined(separator: ", ")))" }
        return text
    }
}
