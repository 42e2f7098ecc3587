import Testing
@testable import CairnModel

@Suite("Collection and document IDs")
struct IDValidationTests {
    @Test("ordinary IDs, 1,500-byte IDs and Datastore numeric document IDs are accepted")
    func accepts() throws {
        let longest = String(repeating: "é", count: 750)  // 1,500 bytes
        let ids = ["ada", "a.b", "...", "_", "__", "___", "_a_", "a__", "__a", "é😀", longest]
        for id in ids {
            try PathValidation.validateDocumentID(id)
            try PathValidation.validateCollectionID(id)
        }
        try PathValidation.validateDocumentID("__id5730082031140864__")
    }

    @Test(
        "IDs that break a server rule are rejected with that rule",
        arguments: [
            ("", "must not be empty"), ("a/b", "cannot contain a forward slash"), (".", "single period (.)"),
            ("..", "double periods (..)"), ("____", "__.*__"), ("__meta__", "are reserved"),
            (String(repeating: "é", count: 751), "no longer than 1,500 bytes, but this one has 1502"),
        ])
    func rejects(id: String, phrase: String) {
        expectInvalidArgument("Invalid document ID", phrase) { try PathValidation.validateDocumentID(id) }
        expectInvalidArgument("Invalid collection ID", phrase) { try PathValidation.validateCollectionID(id) }
    }

    @Test("numeric IDs are reserved as collection IDs")
    func numericCollectionID() {
        expectInvalidArgument("Invalid collection ID \"__id5__\"", "reserved") {
            try PathValidation.validateCollectionID("__id5__")
        }
    }

    @Test("a path is checked segment by segment, naming the kind of ID and the path")
    func paths() throws {
        try PathValidation.validate(ResourcePath(segments: ["users", "__id1__", "posts"]))
        expectInvalidArgument("Invalid document ID \"__x__\" in path users/__x__/posts") {
            try PathValidation.validate(ResourcePath(segments: ["users", "__x__", "posts"]))
        }
        expectInvalidArgument("Invalid collection ID \"..\" in path users/ada/..") {
            try PathValidation.validate(ResourcePath(segments: ["users", "ada", ".."]))
        }
    }

    @Test("at most 100 nested collections")
    func collectionDepth() throws {
        let deepest = ResourcePath(segments: (0..<200).map { $0 % 2 == 0 ? "c" : "d" })
        try PathValidation.validate(deepest)
        expectInvalidArgument("nests 101 collections", "maximum subcollection depth of 100") {
            try PathValidation.validate(deepest.appending("c"))
        }
    }

    @Test("a document name is at most 6 KiB")
    func nameSize() throws {
        let long = String(repeating: "x", count: 1_500)
        let path = ResourcePath(segments: [long, long, long, long, "a"])  // 6,000 + 5 bytes
        try PathValidation.validate(path)
        expectInvalidArgument("the document name is 6146 bytes", "6144-byte (6 KiB) maximum") {
            try PathValidation.validate(path.appending(String(repeating: "y", count: 140)))
        }
    }
}

@Suite("Field names")
struct FieldNameValidationTests {
    @Test("names matching __.*__ are reserved, shorter underscore runs are not")
    func reserved() {
        for name in ["__name__", "____", "__a__", "__id5__", "__😀__"] {
            #expect(FieldValidation.isReserved(name), "\(name)")
        }
        for name in ["__", "___", "_a_", "__a", "a__", "a__b", "name"] {
            #expect(!FieldValidation.isReserved(name), "\(name)")
        }
    }

    @Test("a stored field name is non-empty, not reserved and at most 1,500 bytes")
    func names() throws {
        try FieldValidation.validateFieldName(String(repeating: "é", count: 750))
        expectInvalidArgument("Document fields must not be empty") { try FieldValidation.validateFieldName("") }
        expectInvalidArgument("Document fields cannot begin and end with \"__\"") {
            try FieldValidation.validateFieldName("__secret__")
        }
        expectInvalidArgument("but this one has 1502") {
            try FieldValidation.validateFieldName(String(repeating: "é", count: 751))
        }
    }

    @Test("a written field path has valid segments and at most 1,500 escaped bytes")
    func writablePaths() throws {
        try FieldValidation.validateWritableFieldPath(FieldPath(parsingDotted: "a.b"))
        expectInvalidArgument("Invalid field path (a.__b__)", "cannot begin and end with") {
            try FieldValidation.validateWritableFieldPath(FieldPath(segments: ["a", "__b__"]))
        }
        expectInvalidArgument("the empty path") {
            try FieldValidation.validateWritableFieldPath(FieldPath(segments: []))
        }
        let segment = String(repeating: "x", count: 749)
        try FieldValidation.validateWritableFieldPath(FieldPath(segments: [segment, segment]))  // 1,499 bytes
        // Quoting counts: "`x..x `.x..x" is 752 + 1 + 749 = 1,502 bytes; joined raw it would be 1,500.
        expectInvalidArgument("but this one has 1502") {
            try FieldValidation.validateWritableFieldPath(FieldPath(segments: [segment + " ", segment]))
        }
    }
}

@Suite("Document data rules")
struct DocumentDataValidationTests {
    let key = DocumentKey(path: ResourcePath(segments: ["users", "ada"]))

    /// `levels` maps nested inside each other, the innermost holding an integer.
    func nestedMaps(_ levels: Int) -> Value {
        (0..<levels).reduce(Value.integer(1)) { inner, _ in .map(ObjectValue(["n": inner])) }
    }

    @Test("maps and arrays nest at most 20 levels, counting the top-level field's value as level 1")
    func depth() throws {
        try DocumentValidation.validate(ObjectValue(["f": nestedMaps(20)]), key: key)
        expectInvalidArgument("exceeds the maximum depth of 20", "(found in field f.n.n.n", "in document users/ada") {
            try DocumentValidation.validate(ObjectValue(["f": nestedMaps(21)]), key: key)
        }
        // Arrays count as levels too: 10 arrays alternating with 10 maps is depth 20, one more map is 21.
        let alternating = (0..<10).reduce(Value.null) { inner, _ in .array([.map(ObjectValue(["m": inner]))]) }
        try DocumentValidation.validate(ObjectValue(["f": alternating]), key: key)
        expectInvalidArgument("exceeds the maximum depth of 20", "(found in field f.x[0].m[0].m[0]") {
            try DocumentValidation.validate(ObjectValue(["f": .map(ObjectValue(["x": alternating]))]), key: key)
        }
    }

    @Test("the documentation's example has depth 3")
    func documentedDepthExample() throws {
        let example = Value.map(ObjectValue(["nested_array": .array([.map(ObjectValue(["foo": .string("bar")]))])]))
        try DocumentValidation.validate(example, at: FieldPath(segments: (1...18).map { "p\($0)" }))  // 17 + 3 = 20
        expectInvalidArgument("it reaches depth 21") {
            try DocumentValidation.validate(example, at: FieldPath(segments: (1...19).map { "p\($0)" }))
        }
    }

    @Test("an array directly inside an array is rejected; through a map it is fine")
    func nestedArrays() throws {
        expectInvalidArgument("Nested arrays are not supported", "(found in field tags[1] in document users/ada)") {
            try DocumentValidation.validate(ObjectValue(["tags": .array([.string("a"), .array([])])]), key: key)
        }
        let wrapped = Value.array([.map(ObjectValue(["values": .array([.integer(1)])]))])
        try DocumentValidation.validate(ObjectValue(["tags": wrapped]), key: key)
    }

    @Test("reserved and empty field names are rejected at any depth, with their location")
    func fieldNames() {
        let profile = ObjectValue(["profile": .map(ObjectValue(["__secret__": .null]))])
        expectInvalidArgument(
            "cannot begin and end with \"__\"", "(found in field profile.__secret__ in document users/ada)"
        ) {
            try DocumentValidation.validate(profile, key: key)
        }
        expectInvalidArgument("Document fields must not be empty", "list[0].``") {
            try DocumentValidation.validate(ObjectValue(["list": .array([.map(ObjectValue(["": .null]))])]), key: key)
        }
    }

    @Test("timestamps run from 0001-01-01 to 9999-12-31T23:59:59.999999999 with 0...999,999,999 nanoseconds")
    func timestamps() throws {
        let earliest = Timestamp(seconds: -62_135_596_800, nanoseconds: 0)
        let latest = Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999)
        for valid in [earliest, latest] {
            try DocumentValidation.validate(ObjectValue(["t": .timestamp(valid)]), key: key)
        }
        let invalid: [(Timestamp, String)] = [
            (Timestamp(seconds: -62_135_596_801, nanoseconds: 999_999_999),
             "Timestamp seconds out of range: -62135596801"),
            (Timestamp(seconds: 253_402_300_800, nanoseconds: 0), "Timestamp seconds out of range: 253402300800"),
            (Timestamp(seconds: 0, nanoseconds: -1), "Timestamp nanoseconds out of range: -1"),
            (Timestamp(seconds: 0, nanoseconds: 1_000_000_000), "Timestamp nanoseconds out of range: 1000000000"),
        ]
        for (timestamp, phrase) in invalid {
            expectInvalidArgument(phrase, "(found in field t in document users/ada)") {
                try DocumentValidation.validate(ObjectValue(["t": .timestamp(timestamp)]), key: key)
            }
        }
    }

    @Test("geopoints need a latitude in [-90, 90] and a longitude in [-180, 180], never NaN")
    func geoPoints() throws {
        func point(_ lat: Double, _ lng: Double) -> ObjectValue {
            ObjectValue(["g": .geoPoint(GeoPoint(latitude: lat, longitude: lng))])
        }
        for (lat, lng) in [(-90.0, -180.0), (90.0, 180.0), (0.0, 0.0)] {
            try DocumentValidation.validate(point(lat, lng), key: key)
        }
        let invalid: [(Double, Double, String)] = [
            (90.000001, 0, "Latitude must be a number between -90 and 90, but was: 90.000001"),
            (-.infinity, 0, "Latitude"), (.nan, 0, "but was: nan"),
            (0, 180.5, "Longitude must be a number between -180 and 180, but was: 180.5"), (0, .nan, "Longitude"),
        ]
        for (lat, lng, phrase) in invalid {
            expectInvalidArgument(phrase) {
                try DocumentValidation.validate(point(lat, lng), key: key)
            }
        }
    }

    @Test("the document key's IDs are checked too")
    func keyIDs() {
        expectInvalidArgument("Invalid collection ID \"__c__\"") {
            let reserved = DocumentKey(path: ResourcePath(segments: ["__c__", "d"]))
            try DocumentValidation.validate(ObjectValue(), key: reserved)
        }
    }
}

@Suite("Storage size")
struct StorageSizeTests {
    @Test("the documentation's worked example: users/jeff/tasks/my_task_id is 147 bytes")
    func documentedExample() throws {
        let key = try DocumentKey(parsing: "users/jeff/tasks/my_task_id")
        let data = ObjectValue([
            "type": .string("Personal"), "done": .boolean(false), "priority": .integer(1),
            "description": .string("Learn Cloud Firestore"),
        ])
        #expect(DocumentValidation.nameSize(of: key) == 44)  // 6 + 5 + 6 + 11 + 16
        #expect(DocumentValidation.storageSize(of: data, key: key) == 147)  // 44 + 71 + 32
        #expect(DocumentValidation.storageSize(of: ObjectValue(["done": .boolean(false)]), key: key) - 44 - 32 == 6)
    }

    @Test("an integer document ID counts 8 bytes: Task/__id5730082031140864__ is 29")
    func numericDocumentID() throws {
        #expect(DocumentValidation.nameSize(of: try DocumentKey(parsing: "Task/__id5730082031140864__")) == 29)
    }

    @Test("each value type has its documented size")
    func valueSizes() throws {
        let reference = Value.reference(DatabaseID(projectID: "p"), try DocumentKey(parsing: "users/jeff"))
        let cases: [(Value, Int)] = [
            (.null, 1), (.boolean(true), 1), (.integer(.max), 8), (.double(.nan), 8),
            (.timestamp(Timestamp(seconds: 1, nanoseconds: 2)), 8), (.string(""), 1), (.string("é😀"), 7),
            (.bytes([1, 2, 3]), 3), (.geoPoint(GeoPoint(latitude: 1, longitude: 2)), 16), (reference, 27),
            (.serverTimestamp(localWriteTime: Timestamp(seconds: 1, nanoseconds: 0), previous: .string("long")), 8),
            (.array([.integer(1), .string("ab")]), 11), (.array([]), 0),
            (.map(ObjectValue(["a": .integer(1), "bc": .null])), 14), (.map(ObjectValue()), 0),
        ]
        for (value, size) in cases { #expect(DocumentValidation.storageSize(of: value) == size, "\(value)") }
    }

    @Test("a document of exactly 1 MiB is accepted, one byte more is rejected with its size")
    func documentLimit() throws {
        let key = try DocumentKey(parsing: "c/d")  // name 20
        let half = String(repeating: "x", count: 524_259)  // 524,260 bytes as a value
        var data = ObjectValue(["a": .string(half), "b": .string(half)])  // 20 + 2 × (2 + 524,260) + 32
        #expect(DocumentValidation.storageSize(of: data, key: key) == 1_048_576)
        try DocumentValidation.validate(data, key: key)
        data.fields["b"] = .string(half + "x")
        expectInvalidArgument(
            "Document 'c/d' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of "
                + "1,048,576 bytes.") {
            try DocumentValidation.validate(data, key: key)
        }
    }

    @Test("a field value of 1 MiB - 89 bytes is accepted, one byte more is rejected")
    func fieldValueLimit() throws {
        let key = try DocumentKey(parsing: "c/d")
        let largest = String(repeating: "x", count: 1_048_486)  // 1,048,487 bytes as a value
        try DocumentValidation.validate(ObjectValue(["s": .string(largest)]), key: key)
        expectInvalidArgument("The value of property \"s\" in document c/d is longer than 1048487 bytes", "(it is 1048488 bytes") {
            try DocumentValidation.validate(ObjectValue(["s": .string(largest + "x")]), key: key)
        }
        expectInvalidArgument("The value of property \"a.b\" is longer than 1048487 bytes") {
            try DocumentValidation.validate(.string(largest + "x"), at: FieldPath(segments: ["a", "b"]))
        }
    }
}
