/// Firestore's storage size of documents and values, the measure behind the 1 MiB document limit and the
/// 1 MiB - 89 bytes field value limit.
///
/// Rules (Firebase "Storage size calculations", https://firebase.google.com/docs/firestore/storage-size):
///
/// | item           | size                                                                         |
/// |----------------|------------------------------------------------------------------------------|
/// | string         | UTF-8 bytes + 1 (string values, field names, collection and document IDs)    |
/// | document ID    | its string size, or 8 for an integer ID (exposed as `__id<n>__`)             |
/// | document name  | the sizes of every collection ID and document ID in the path + 16            |
/// | null, boolean  | 1                                                                            |
/// | integer, double, timestamp | 8 (a pending server timestamp becomes a timestamp: 8)            |
/// | geopoint       | 16                                                                           |
/// | bytes          | their length                                                                 |
/// | reference      | the referenced document's name size                                          |
/// | array          | the sum of its elements' sizes                                               |
/// | map            | the sum, over its entries, of the key's string size + the value's size       |
/// | document       | name size + the sum, over its fields, of name string size + value size + 32  |
///
/// The page says a map is "calculated the same way as document size" and gives no worked example; this counts
/// a map as the sum of its entries, without the 32 extra bytes that only the document itself adds.
///
/// Worked example from that page: `users/jeff/tasks/my_task_id` with `type: "Personal"`, `done: false`,
/// `priority: 1`, `description: "Learn Cloud Firestore"` is 44 (name) + 71 (fields) + 32 = 147 bytes.
///
/// ```swift
/// let key = try DocumentKey(parsing: "users/jeff/tasks/my_task_id")
/// DocumentValidation.nameSize(of: key)                         // 44
/// DocumentValidation.storageSize(of: .string("Personal"))      // 9
/// ```
extension DocumentValidation {
    /// The storage size of a document: its name, its fields, and 32 bytes.
    package static func storageSize(of data: ObjectValue, key: DocumentKey) -> Int {
        nameSize(of: key) + fieldsSize(data) + 32
    }

    /// The storage size of a value (see the table above).
    package static func storageSize(of value: Value) -> Int {
        switch value {
        case .null, .boolean:
            1
        case .integer, .double, .timestamp, .serverTimestamp:
            8
        case .string(let string):
            stringSize(string)
        case .bytes(let bytes):
            bytes.count
        case .reference(_, let key):
            nameSize(of: key)
        case .geoPoint:
            16
        case .array(let elements):
            elements.reduce(0) { $0 + storageSize(of: $1) }
        case .map(let object):
            fieldsSize(object)
        }
    }

    /// The storage size of a document name: each collection ID and document ID in the path, plus 16.
    package static func nameSize(of key: DocumentKey) -> Int {
        var size = 16
        for (index, segment) in key.path.segments.enumerated() {
            let isDocumentID = index % 2 == 1
            size += isDocumentID && PathSegmentOrder.numericID(segment) != nil ? 8 : stringSize(segment)
        }
        return size
    }

    /// The sum over the entries of the name's string size plus the value's size.
    private static func fieldsSize(_ object: ObjectValue) -> Int {
        object.fields.reduce(0) { $0 + stringSize($1.key) + storageSize(of: $1.value) }
    }

    /// UTF-8 bytes + 1.
    private static func stringSize(_ string: String) -> Int { string.utf8.count + 1 }
}
