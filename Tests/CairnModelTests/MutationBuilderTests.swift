import Testing
@testable import CairnModel

@Suite("MutationBuilder: set and merge")
struct MutationBuilderSetTests: MutationTesting {
    let builder = MutationBuilder(databaseID: DatabaseID(projectID: "demo"))

    @Test("set turns sentinels into transforms, leaves them out of the value, and has no precondition")
    func set() throws {
        let mutation = try builder.set(key, data: [
            "name": "Ada", "stats": ["visits": .increment(.integer(1)), "since": 1815], "at": .serverTimestamp,
        ])
        #expect(mutation == .set(key, value: object(["name": .string("Ada"), "stats": map(["since": .integer(1815)])]),
                                 precondition: .none, transforms: [
                                     transform("at", .serverTimestamp),
                                     transform("stats.visits", .increment(.integer(1))),
                                 ]))
    }

    @Test("set rejects FieldValue.delete()")
    func setRejectsDelete() {
        expectError("FieldValue.delete() can only be used with updateData() and setData() with merge:true (found in field a.b)") {
            try builder.set(key, data: ["a": ["b": .delete]])
        }
    }

    @Test("merge writes every leaf, empty maps and deletes, but not transformed fields, with no precondition")
    func merge() throws {
        let mutation = try builder.setMerge(key, data: [
            "address": ["city": "London", "zip": .delete, "geo": [:]], "n": .increment(.integer(2)), "tags": ["a"],
        ])
        #expect(mutation == .patch(
            key, value: object(["address": map(["city": .string("London"), "geo": map([:])]), "tags": .array([.string("a")])]),
            mask: mask("address.city", "address.geo", "address.zip", "tags"), precondition: .none,
            transforms: [transform("n", .increment(.integer(2)))]))
    }

    @Test("merging nested maps keeps the document's other nested fields and applies the deletes")
    func mergeAppliesToDocument() throws {
        let mutation = try builder.setMerge(key, data: ["address": ["city": "London", "zip": .delete]])
        let before = found(["address": map(["city": .string("Paris"), "zip": .string("75001"), "street": .string("Rue")]),
                            "name": .string("Ada")])
        #expect(local(mutation, to: before).document?.data
            == object(["address": map(["city": .string("London"), "street": .string("Rue")]), "name": .string("Ada")]))
    }

    @Test("merge fields limit the mask to those paths and keep only the transforms under them")
    func mergeFields() throws {
        let mutation = try builder.setMerge(
            key, data: ["a": ["x": 1, "y": 2], "b": 3, "n": .increment(.integer(1)), "m": .serverTimestamp],
            mergeFields: [field("a"), field("n")])
        #expect(mutation.fieldMask == mask("a", "n"))
        #expect(mutation.fieldTransforms == [transform("n", .increment(.integer(1)))])
        #expect(local(mutation, to: found(["a": map(["z": .integer(0)]), "b": .integer(0)])).document?.data
            == object(["a": map(["x": .integer(1), "y": .integer(2)]), "b": .integer(0), "n": .integer(1)]))
    }

    @Test("a merge field missing from the data is an error")
    func mergeFieldMissing() {
        expectError("Field 'a.z' is specified in your field mask but missing from your input data.") {
            try builder.setMerge(key, data: ["a": ["x": 1]], mergeFields: [field("a.x"), field("a.z")])
        }
    }
}

@Suite("MutationBuilder: update")
struct MutationBuilderUpdateTests: MutationTesting {
    let builder = MutationBuilder(databaseID: DatabaseID(projectID: "demo"))

    @Test("update writes exactly the given paths, deletes with FieldValue.delete(), and requires existence")
    func update() throws {
        let mutation = try builder.update(key, data: [
            field("address.city"): "London", field("nickname"): .delete, field("visits"): .increment(.integer(1)),
            field("tags"): ["a"],
        ])
        #expect(mutation == .patch(
            key, value: object(["address": map(["city": .string("London")]), "tags": .array([.string("a")])]),
            mask: mask("address.city", "nickname", "tags"), precondition: .exists(true),
            transforms: [transform("visits", .increment(.integer(1)))]))
    }

    @Test("an update's map value replaces the whole map")
    func mapValueReplaces() throws {
        let mutation = try builder.update(key, data: [field("address"): ["city": "London"]])
        #expect(mutation.fieldMask == mask("address"))
        #expect(local(mutation, to: found(["address": map(["zip": .string("1")])])).document?.data
            == object(["address": map(["city": .string("London")])]))
    }

    @Test("FieldValue.delete() nested inside an update value is an error")
    func nestedDelete() {
        expectError("FieldValue.delete() can only appear at the top level of your update data (found in field a.b)") {
            try builder.update(key, data: [field("a"): ["b": .delete]])
        }
    }

    @Test("an update path with a reserved name is an error")
    func reservedPath() {
        expectError("Invalid field path (a.__x__). Document fields cannot begin and end with \"__\": names matching __.*__ are reserved by Firestore. Rename the field.") {
            try builder.update(key, data: [field("a.__x__"): 1])
        }
    }
}

@Suite("MutationBuilder: where values are allowed")
struct MutationBuilderValidationTests: MutationTesting {
    let builder = MutationBuilder(databaseID: DatabaseID(projectID: "demo"))

    @Test("sentinels inside arrays are errors")
    func sentinelInArray() {
        expectError("FieldValue.serverTimestamp() is not currently supported inside arrays") {
            try builder.set(key, data: ["a": [1, .serverTimestamp]])
        }
        expectError("FieldValue.delete() is not currently supported inside arrays") {
            try builder.setMerge(key, data: ["a": [.delete]])
        }
    }

    @Test("arrays inside arrays are errors, in data and in array transform elements")
    func nestedArrays() {
        expectError("Nested arrays are not supported") { try builder.set(key, data: ["a": [[1]]]) }
        expectError("Nested arrays are not supported") { try builder.set(key, data: ["a": .value(.array([.array([])]))]) }
        expectError("Nested arrays are not supported") { try builder.set(key, data: ["a": .arrayUnion([[1]])]) }
    }

    @Test("an array inside a map inside an array is fine")
    func arrayInMapInArray() throws {
        let mutation = try builder.set(key, data: ["a": [["b": [1]]]])
        #expect(mutation == .set(key, value: object(["a": .array([map(["b": .array([.integer(1)])])])])))
    }

    @Test("sentinels inside array transform elements are errors")
    func sentinelInArrayTransform() {
        expectError("FieldValue.delete() can only be used with updateData() and setData()") {
            try builder.update(key, data: [field("tags"): .arrayRemove([.delete])])
        }
    }

    @Test("array transform elements keep their types and order")
    func arrayTransformElements() throws {
        let mutation = try builder.update(key, data: [field("tags"): .arrayUnion([1, 1.0, ["k": "v"]])])
        #expect(mutation.fieldTransforms == [
            transform("tags", .arrayUnion([.integer(1), .double(1.0), map(["k": .string("v")])])),
        ])
    }

    @Test("field names must not be empty nor reserved, at any depth")
    func fieldNames() {
        expectError("Invalid data. Document fields must not be empty. (found in field a.``)") {
            try builder.set(key, data: ["a": ["": 1]])
        }
        expectError("Invalid data. Document fields cannot begin and end with \"__\": names matching __.*__ are reserved by Firestore. Rename the field. (found in field __meta__)") {
            try builder.setMerge(key, data: ["__meta__": 1])
        }
    }

    @Test("a reference into another database is an error")
    func foreignReference() {
        let other = Value.reference(DatabaseID(projectID: "elsewhere"), otherKey)
        expectError("Document Reference is for database elsewhere/(default) but should be for database demo/(default) (found in field ref)") {
            try builder.set(key, data: ["ref": .value(other)])
        }
    }

    @Test("an increment needs a number and a pending server timestamp cannot be written as data")
    func badValues() {
        expectError("FieldValue.increment() needs an integer or a double operand (found in field n)") {
            try builder.set(key, data: ["n": .increment(.string("1"))])
        }
        expectError("Unsupported type: a pending server timestamp cannot be written; use FieldValue.serverTimestamp() (found in field t)") {
            try builder.set(key, data: ["t": .value(.serverTimestamp(localWriteTime: writeTime, previous: nil))])
        }
    }

    @Test("delete builds a delete without precondition")
    func delete() throws {
        #expect(try builder.delete(key) == .delete(key, precondition: .none))
    }
}
