import Testing
@testable import CairnModel

@Suite("Index configuration JSON")
struct IndexConfigurationTests: IndexFixtures {
    /// A valid configuration and the canonical ids of the indexes it defines.
    struct Valid: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var ids: [String]
        var testDescription: String { name }
    }

    static let valid: [Valid] = [
        Valid(
            name: "the Firebase docs' composite index, with a field override",
            json: """
                {"indexes": [{"collectionGroup": "cities", "queryScope": "COLLECTION",
                              "fields": [{"fieldPath": "country", "order": "ASCENDING"},
                                         {"fieldPath": "population", "order": "DESCENDING"}]}],
                 "fieldOverrides": [{"collectionGroup": "landmarks", "fieldPath": "tags", "ttl": false,
                                     "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION"},
                                                 {"arrayConfig": "CONTAINS", "queryScope": "COLLECTION"}]}]}
                """,
            ids: ["cities|country:asc,population:desc"]),
        Valid(
            name: "the semantics notes' example: an array-contains field between ordered fields",
            json: """
                {"indexes":[{"collectionGroup":"posts","queryScope":"COLLECTION",
                             "fields":[{"fieldPath":"author","order":"ASCENDING"},
                                       {"fieldPath":"tags","arrayConfig":"CONTAINS"},
                                       {"fieldPath":"ts","order":"DESCENDING"}]}],
                 "fieldOverrides":[]}
                """,
            ids: ["posts|author:asc,tags:contains,ts:desc"]),
        Valid(
            name: "collection group scope, nested and escaped field paths, several indexes in order",
            json: """
                {"indexes": [
                   {"collectionGroup": "landmarks", "queryScope": "COLLECTION_GROUP",
                    "fields": [{"fieldPath": "address.city", "order": "ASCENDING"},
                               {"fieldPath": "`zip code`", "order": "DESCENDING"}]},
                   {"collectionGroup": "cities", "fields": [{"fieldPath": "regions", "arrayConfig": "CONTAINS"},
                                                            {"fieldPath": "name", "order": "ASCENDING"}]}]}
                """,
            ids: ["landmarks|address.city:asc,`zip code`:desc", "cities|regions:contains,name:asc"]),
        Valid(name: "an empty object defines no index", json: "{}", ids: []),
        Valid(
            name: "only field overrides define no index",
            json: #"{"fieldOverrides": [{"collectionGroup": "a", "fieldPath": "b", "indexes": []}]}"#, ids: []),
        Valid(
            name: "unknown keys of newer CLIs are ignored, and a duplicate index is listed once",
            json: """
                {"indexes": [{"collectionGroup": "c", "density": "SPARSE_ALL", "apiScope": "ANY_API",
                              "fields": [{"fieldPath": "a", "order": "ASCENDING"}]},
                             {"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "ASCENDING"}]}]}
                """,
            ids: ["c|a:asc"]),
        Valid(
            name: "a vector index is skipped",
            json: """
                {"indexes": [{"collectionGroup": "docs", "fields": [
                                {"fieldPath": "kind", "order": "ASCENDING"},
                                {"fieldPath": "embedding", "vectorConfig": {"dimension": 3, "flat": {}}}]},
                             {"collectionGroup": "docs", "fields": [{"fieldPath": "kind", "order": "DESCENDING"}]}]}
                """,
            ids: ["docs|kind:desc"]),
        Valid(
            name: "the same field may be CONTAINS and ordered in one index",
            json: """
                {"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "arrayConfig": "CONTAINS"},
                                                                 {"fieldPath": "a", "order": "ASCENDING"}]}]}
                """,
            ids: ["c|a:contains,a:asc"]),
    ]

    @Test("valid configurations parse to their indexes", arguments: valid)
    func parsesValid(_ example: Valid) throws {
        let indexes = try IndexConfiguration.parse(example.json)
        #expect(indexes.map(\.canonicalID) == example.ids)
    }

    @Test("a parsed index has the fields, kinds and collection group of its definition")
    func parsedStructure() throws {
        let json = """
            {"indexes":[{"collectionGroup":"posts","fields":[{"fieldPath":"author","order":"ASCENDING"},
              {"fieldPath":"tags","arrayConfig":"CONTAINS"},{"fieldPath":"a.`b.c`","order":"DESCENDING"}]}]}
            """
        let parsed = try #require(try IndexConfiguration.parse(json).first)
        #expect(parsed.collectionGroup == "posts")
        let nested = FieldPath(segments: ["a", "b.c"])
        #expect(parsed.segments == [.init(field("author"), .ascending), .init(field("tags"), .contains), .init(nested, .descending)])
        #expect(parsed.arraySegment == FieldIndex.Segment(field("tags"), .contains))
        #expect(parsed.directionalSegments.map(\.field) == [field("author"), nested])
        #expect(parsed.directionalSegments.map(\.kind) == [.ascending, .descending])
    }

    /// A malformed configuration and the whole message it must fail with.
    struct Invalid: CustomTestStringConvertible, Sendable {
        var json: String
        var message: String
        var testDescription: String { message }
    }

    static let invalid: [Invalid] = [
        Invalid(json: #"{"indexes": ["#, message: "index JSON is not valid JSON: Unexpected end of file during JSON parse."),
        Invalid(json: "[]", message: "index JSON must be an object with an 'indexes' array, not an array."),
        Invalid(json: #"{"indexes": {}}"#, message: "'indexes' must be an array of index definitions, not an object."),
        Invalid(json: #"{"fieldOverrides": 3}"#, message: "'fieldOverrides' must be an array, not a number."),
        Invalid(json: #"{"indexes": ["c"]}"#, message: "indexes[0]: an index definition must be an object, not a string."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "ASCENDING"}]}, {}, {"fields": []}]}"#,
            message: "indexes[1]: missing 'collectionGroup'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": true, "fields": []}]}"#,
            message: "indexes[0]: 'collectionGroup' must be a string, not a boolean."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "a/b", "fields": [{"fieldPath": "x", "order": "ASCENDING"}]}]}"#,
            message: "indexes[0]: Invalid index: the collection group must be a non-empty collection id without '/', not 'a/b'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "queryScope": "DATABASE", "fields": []}]}"#,
            message: "indexes[0]: 'queryScope' must be COLLECTION, COLLECTION_GROUP or COLLECTION_RECURSIVE, not 'DATABASE'."),
        Invalid(json: #"{"indexes": [{"collectionGroup": "c"}]}"#, message: "indexes[0]: missing 'fields'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": []}]}"#,
            message: "indexes[0]: 'fields' must be a non-empty array of fields, not an array."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [null]}]}"#,
            message: "indexes[0].fields[0]: a field must be an object, not null."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"order": "ASCENDING"}]}]}"#,
            message: "indexes[0].fields[0]: missing 'fieldPath'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a..b", "order": "ASCENDING"}]}]}"#,
            message: "indexes[0].fields[0]: invalid 'fieldPath' 'a..b': Invalid field path (a..b). Paths must not be empty, begin with '.', end with '.', or contain '..'"),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "`a", "order": "ASCENDING"}]}]}"#,
            message: "indexes[0].fields[0]: invalid 'fieldPath' '`a': Invalid field path (`a). Unterminated ` in path; close the quoted segment with '`'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b", "order": "UP"}]}]}"#,
            message: "indexes[0].fields[1]: 'order' must be ASCENDING or DESCENDING, not 'UP'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "b", "order": 1}]}]}"#,
            message: "indexes[0].fields[0]: 'order' must be ASCENDING or DESCENDING, not a number."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "b", "arrayConfig": "CONTAINS_ANY"}]}]}"#,
            message: "indexes[0].fields[0]: 'arrayConfig' must be CONTAINS, not 'CONTAINS_ANY'."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "b", "order": "ASCENDING", "arrayConfig": "CONTAINS"}]}]}"#,
            message: "indexes[0].fields[0]: a field takes one of 'order', 'arrayConfig' or 'vectorConfig', but 'order' and 'arrayConfig' are given."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "b"}]}]}"#,
            message: "indexes[0].fields[0]: the field 'b' needs 'order' (ASCENDING or DESCENDING) or 'arrayConfig' (CONTAINS)."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "b", "vectorConfig": 3}]}]}"#,
            message: "indexes[0].fields[0]: 'vectorConfig' must be an object, not a number."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "arrayConfig": "CONTAINS"}, {"fieldPath": "x", "order": "ASCENDING"}, {"fieldPath": "b", "arrayConfig": "CONTAINS"}]}]}"#,
            message: "indexes[0].fields[2]: only one field of an index may be CONTAINS, but fields[0] already is."),
        Invalid(
            json: #"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "a", "order": "DESCENDING"}]}]}"#,
            message: "indexes[0].fields[1]: the field 'a' is already ordered by fields[0]; list each field once."),
    ]

    @Test("malformed configurations are rejected with a message naming the problem and its location", arguments: invalid)
    func rejectsInvalid(_ example: Invalid) {
        do {
            let indexes = try IndexConfiguration.parse(example.json)
            Issue.record("expected an error, parsed \(indexes)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message == example.message)
        }
    }

    @Test("FieldIndex itself rejects a second contains segment, a repeated ordered field and no segments")
    func fieldIndexInvariants() {
        let a = field("a"), b = field("b")
        expectInvalid("at most one field may be CONTAINS, but 'a' and 'b' are") {
            _ = try FieldIndex(collectionGroup: "c", segments: [.init(a, .contains), .init(b, .contains)])
        }
        expectInvalid("the field 'a' is ordered twice") {
            _ = try FieldIndex(collectionGroup: "c", segments: [.init(a, .ascending), .init(a, .descending)])
        }
        expectInvalid("an index needs at least one field") { _ = try FieldIndex(collectionGroup: "c", segments: []) }
        expectInvalid("non-empty collection id") {
            _ = try FieldIndex(collectionGroup: "", segments: [.init(a, .ascending)])
        }
    }

    @Test("canonical ids are equal exactly for equal indexes, and collection groups compare by UTF-8 bytes")
    func canonicalIDs() {
        let indexes = [
            index("c", "a"), index("c", "a desc"), index("c", "a contains"), index("c", "a", "b"), index("c", "b", "a"),
            index("d", "a"), index("c", "a.b"), try! FieldIndex(collectionGroup: "c", segments: [.init(FieldPath(segments: ["a.b"]), .ascending)]),
            index("c|a:asc", "a"), index("\u{E9}", "a"), index("e\u{301}", "a"),
        ]
        for a in indexes {
            for b in indexes {
                #expect((a == b) == a.canonicalID.utf8.elementsEqual(b.canonicalID.utf8), "\(a) vs \(b)")
                #expect((a == b) == a.id.utf8.elementsEqual(b.id.utf8))
            }
        }
        #expect(Set(indexes).count == indexes.count)
        #expect(index("c|a:asc", "a").canonicalID == "`c|a:asc`|a:asc")
    }
}
