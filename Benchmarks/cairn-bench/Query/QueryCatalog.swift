// The queries the suite runs and the field indexes it configures, shared by every engine. The range bounds
// sit at the middle of their fields' uniform distributions, so about half of the orders match each range
// query and a limit-20 query must consider all of them (or read 20 index entries).

import CairnModel

/// The suite's queries and index configuration.
enum QueryCatalog {
    static let orders = ResourcePath(segments: ["orders"])
    static let lobby = ResourcePath(segments: ["rooms", "lobby", "messages"])

    /// Configured for every engine that supports indexes: `orders.createdAt` ascending and
    /// `orders.tags` array-contains (Firebase CLI `firestore.indexes.json` format).
    static let indexConfiguration = """
        {"indexes": [
          {"collectionGroup": "orders", "queryScope": "COLLECTION",
           "fields": [{"fieldPath": "createdAt", "order": "ASCENDING"}]},
          {"collectionGroup": "orders", "queryScope": "COLLECTION",
           "fields": [{"fieldPath": "tags", "arrayConfig": "CONTAINS"}]}
        ], "fieldOverrides": []}
        """

    /// The parsed ``indexConfiguration``.
    static func fieldIndexes() throws -> [FieldIndex] { try IndexConfiguration.parse(indexConfiguration) }

    /// `orders where region == "r42"`: 1% of the orders, no index.
    static func scanEquality() throws -> Query {
        try Query(path: orders).filtered(by: .field(FieldFilter(field("region"), .equal, .string("r42"))))
    }

    /// `orders where amount > 500 order by amount limit 20`: no index on `amount`.
    static func scanRangeOrderLimit() throws -> Query {
        try Query(path: orders)
            .filtered(by: .field(FieldFilter(field("amount"), .greaterThan, .double(500))))
            .ordered(by: OrderBy(field("amount")))
            .limited(to: 20)
    }

    /// `orders where createdAt > middle order by createdAt limit 20`: served by the `createdAt` index.
    static func indexRangeOrderLimit() throws -> Query {
        let middle = QueryCorpus.timeBase + Int64(QueryCorpus.timeSpan / 2)
        return try Query(path: orders)
            .filtered(by: .field(FieldFilter(field("createdAt"), .greaterThan, .integer(middle))))
            .ordered(by: OrderBy(field("createdAt")))
            .limited(to: 20)
    }

    /// `orders where tags array-contains "priority"`: served by the `tags` index (about 1.4% of the orders).
    static func indexArrayContains() throws -> Query {
        try Query(path: orders).filtered(by: .field(FieldFilter(field("tags"), .arrayContains, .string("priority"))))
    }

    /// `collectionGroup("messages") where channel == "c07"`: 1% of the messages of every room, no index.
    static func collectionGroupEquality() throws -> Query {
        try Query(path: .root, collectionGroup: "messages")
            .filtered(by: .field(FieldFilter(field("channel"), .equal, .string("c07"))))
    }

    /// `rooms/lobby/messages order by sentAt`: the 1,000-message chat of `listener_latency`.
    static func lobbyBySentAt() throws -> Query {
        try Query(path: lobby).ordered(by: OrderBy(field("sentAt")))
    }

    static func field(_ name: String) -> FieldPath { FieldPath(segments: [name]) }

    /// The query of a query workload (`query_scan_eq`, ...), or nil for the other workloads.
    static func query(forWorkload name: String) throws -> Query? {
        switch name {
        case "query_scan_eq": return try scanEquality()
        case "query_scan_range_order_limit": return try scanRangeOrderLimit()
        case "query_index_range_order_limit": return try indexRangeOrderLimit()
        case "query_index_array_contains": return try indexArrayContains()
        case "query_collection_group": return try collectionGroupEquality()
        default: return nil
        }
    }

    /// What each query workload asks, for the report.
    static let descriptions = [
        "query_scan_eq": "`orders where region == \"r42\"` (1% of the orders, no index)",
        "query_scan_range_order_limit":
            "`orders where amount > 500 order by amount limit 20` (half the orders match, no index)",
        "query_index_range_order_limit":
            "`orders where createdAt > middle order by createdAt limit 20` (index createdAt asc)",
        "query_index_array_contains": "`orders where tags array-contains \"priority\"` (index tags contains)",
        "query_collection_group":
            "`collectionGroup(\"messages\") where channel == \"c07\"` (1% of the messages, no index)",
    ]
}
