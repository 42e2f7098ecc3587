import Foundation

/// The index definitions of `setIndexConfiguration(json)`: the JSON the Firebase CLI writes for
/// `firebase firestore:indexes` (`firestore.indexes.json`), which is also the server's index-definition format.
///
/// ```text
/// config        = { "indexes": [ index* ], "fieldOverrides": [ any* ] }     ; both keys optional
/// index         = { "collectionGroup": string, "queryScope"?: scope, "fields": [ field+ ], other keys }
/// scope         = "COLLECTION" | "COLLECTION_GROUP" | "COLLECTION_RECURSIVE"
/// field         = { "fieldPath": escaped-field-path,
///                   ( "order": "ASCENDING" | "DESCENDING" | "arrayConfig": "CONTAINS" | "vectorConfig": {…} ) }
/// ```
///
/// What is read, as the SDKs read it (firebase-android-sdk `FirebaseFirestore.setIndexConfiguration`, JS
/// `api/index_configuration.ts`): each index's `collectionGroup` and its fields' `fieldPath` with `order` or
/// `arrayConfig`. What is accepted and ignored:
/// - `queryScope`: the SDKs do not tell collection indexes from collection group indexes; an index on `posts`
///   serves queries on every `posts` collection. Its value is still checked, to catch typos.
/// - `fieldOverrides`: single-field index settings only matter on the server (the cache answers single-field
///   queries by scanning); it must be an array, and its contents are not read.
/// - other keys of an index (`density`, `apiScope`, …), which newer CLIs write.
/// - vector indexes (a field with `vectorConfig`): they serve only server-side nearest-neighbour searches, so
///   the whole index is skipped.
///
/// Unlike the SDKs, which treat any field that is not `CONTAINS` as descending (Android) or skip it (JS), a
/// malformed definition is rejected with a message that names the problem and where it is, such as
/// `indexes[0].fields[1]: 'order' must be ASCENDING or DESCENDING, not 'UP'`. Indexes that are equal after
/// parsing are listed once.
///
/// ```swift
/// let indexes = try IndexConfiguration.parse("""
///     {"indexes": [{"collectionGroup": "posts", "queryScope": "COLLECTION",
///                   "fields": [{"fieldPath": "author", "order": "ASCENDING"},
///                              {"fieldPath": "tags", "arrayConfig": "CONTAINS"}]}],
///      "fieldOverrides": []}
///     """)
/// indexes[0].canonicalID   // "posts|author:asc,tags:contains"
/// ```
package enum IndexConfiguration {
    /// Parses index definitions (see the type's documentation for the format).
    ///
    /// - Throws: ``ModelError`` `invalidArgument` for text that is not JSON, or JSON of the wrong shape, with
    ///   the location of the problem (`indexes[2]: missing 'collectionGroup'`).
    package static func parse(_ json: String) throws(ModelError) -> [FieldIndex] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw .invalidArgument("index JSON is not valid JSON: \(reason)")
        }
        guard let config = root as? [String: Any] else {
            throw .invalidArgument(
                "index JSON must be an object with an 'indexes' array, not \(describe(root)).")
        }
        if let overrides = config["fieldOverrides"], !(overrides is [Any]) {
            throw .invalidArgument("'fieldOverrides' must be an array, not \(describe(overrides)).")
        }
        guard let indexesValue = config["indexes"] else { return [] }
        guard let definitions = indexesValue as? [Any] else {
            throw .invalidArgument("'indexes' must be an array of index definitions, not \(describe(indexesValue)).")
        }
        var result: [FieldIndex] = []
        var seen: Set<FieldIndex> = []
        for (position, definition) in definitions.enumerated() {
            guard let index = try parseIndex(definition, at: "indexes[\(position)]") else { continue }
            if seen.insert(index).inserted { result.append(index) }
        }
        return result
    }

    /// One index definition; `nil` for a vector index, which the cache cannot use.
    private static func parseIndex(_ definition: Any, at location: String) throws(ModelError) -> FieldIndex? {
        guard let object = definition as? [String: Any] else {
            throw .invalidArgument("\(location): an index definition must be an object, not \(describe(definition)).")
        }
        let collectionGroup = try string(object, "collectionGroup", at: location)
        if let scope = object["queryScope"] {
            let scopes = ["COLLECTION", "COLLECTION_GROUP", "COLLECTION_RECURSIVE"]
            guard let name = scope as? String, scopes.contains(name) else {
                throw .invalidArgument(
                    "\(location): 'queryScope' must be COLLECTION, COLLECTION_GROUP or COLLECTION_RECURSIVE, "
                        + "not \(quoted(scope)).")
            }
        }
        guard let fieldsValue = object["fields"] else { throw .invalidArgument("\(location): missing 'fields'.") }
        guard let fields = fieldsValue as? [Any], !fields.isEmpty else {
            throw .invalidArgument(
                "\(location): 'fields' must be a non-empty array of fields, not \(describe(fieldsValue)).")
        }
        var segments: [FieldIndex.Segment] = []
        var isVectorIndex = false
        var orderedAt: [FieldPath: Int] = [:]
        var containsAt: Int?
        for (position, field) in fields.enumerated() {
            let fieldLocation = "\(location).fields[\(position)]"
            guard let segment = try parseField(field, at: fieldLocation) else {
                isVectorIndex = true
                continue
            }
            if segment.kind == .contains {
                if let previous = containsAt {
                    throw .invalidArgument(
                        "\(fieldLocation): only one field of an index may be CONTAINS, but fields[\(previous)] "
                            + "already is.")
                }
                containsAt = position
            } else if let previous = orderedAt.updateValue(position, forKey: segment.field) {
                throw .invalidArgument(
                    "\(fieldLocation): the field '\(segment.field.canonicalString)' is already ordered by "
                        + "fields[\(previous)]; list each field once.")
            }
            segments.append(segment)
        }
        if isVectorIndex { return nil }
        do {
            return try FieldIndex(collectionGroup: collectionGroup, segments: segments)
        } catch {
            throw .invalidArgument("\(location): \(error.message)")
        }
    }

    /// One field of an index; `nil` for a vector field.
    private static func parseField(_ field: Any, at location: String) throws(ModelError) -> FieldIndex.Segment? {
        guard let object = field as? [String: Any] else {
            throw .invalidArgument("\(location): a field must be an object, not \(describe(field)).")
        }
        let pathString = try string(object, "fieldPath", at: location)
        let path: FieldPath
        do {
            path = try FieldPath(parsingServerFormat: pathString)
        } catch {
            throw .invalidArgument("\(location): invalid 'fieldPath' '\(pathString)': \(error.message)")
        }
        let modes = ["order", "arrayConfig", "vectorConfig"].filter { object[$0] != nil }
        guard modes.count == 1 else {
            throw .invalidArgument(
                modes.isEmpty
                    ? "\(location): the field '\(pathString)' needs 'order' (ASCENDING or DESCENDING) or "
                        + "'arrayConfig' (CONTAINS)."
                    : "\(location): a field takes one of 'order', 'arrayConfig' or 'vectorConfig', but "
                        + modes.map { "'\($0)'" }.joined(separator: " and ") + " are given.")
        }
        switch modes[0] {
        case "order":
            switch object["order"] as? String {
            case "ASCENDING": return FieldIndex.Segment(path, .ascending)
            case "DESCENDING": return FieldIndex.Segment(path, .descending)
            default:
                throw .invalidArgument(
                    "\(location): 'order' must be ASCENDING or DESCENDING, not \(quoted(object["order"]!)).")
            }
        case "arrayConfig":
            guard object["arrayConfig"] as? String == "CONTAINS" else {
                throw .invalidArgument(
                    "\(location): 'arrayConfig' must be CONTAINS, not \(quoted(object["arrayConfig"]!)).")
            }
            return FieldIndex.Segment(path, .contains)
        default:
            guard object["vectorConfig"] is [String: Any] else {
                throw .invalidArgument(
                    "\(location): 'vectorConfig' must be an object, not \(describe(object["vectorConfig"]!)).")
            }
            return nil
        }
    }

    /// A required string member.
    private static func string(_ object: [String: Any], _ key: String, at location: String) throws(ModelError)
        -> String
    {
        guard let value = object[key] else { throw .invalidArgument("\(location): missing '\(key)'.") }
        guard let string = value as? String else {
            throw .invalidArgument("\(location): '\(key)' must be a string, not \(describe(value)).")
        }
        return string
    }

    /// A JSON value for a message: strings quoted, anything else by kind.
    private static func quoted(_ value: Any) -> String {
        if let string = value as? String { return "'\(string)'" }
        return describe(value)
    }

    /// The kind of a parsed JSON value, for messages ("a string", "an array", …).
    private static func describe(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        case is NSNull: "null"
        case let number as NSNumber: String(cString: number.objCType) == "c" ? "a boolean" : "a number"
        default: "\(type(of: value))"
        }
    }
}
