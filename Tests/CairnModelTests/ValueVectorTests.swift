import Testing
@testable import CairnModel

/// Vectors: Firestore's `{"__type__": "__vector__", "value": [...]}` maps, with their own place in the order
/// (Firebase's `TypeOrder::kVector`, `CompareVectors`), in index keys, and in write validation.
@Suite("Vector values")
struct ValueVectorTests: MutationTesting {
    let builder = MutationBuilder(databaseID: DatabaseID(projectID: "demo"))

    @Test("a vector sorts after every array and before every other map, also empty ones")
    func typeOrder() {
        let vector = Value.vector([1, 2])
        #expect(vector.typeOrder == .vector)
        for array in [Value.array([]), .array([.integer(9), .integer(9), .integer(9)]), .array([.string("z")])] {
            #expect(Value.compare(array, vector) == -1, "\(array)")
            #expect(Value.compare(vector, array) == 1, "\(array)")
        }
        for map in [Value.map(ObjectValue()), map(["a": .null]), map(["__type__": .string("__other__")])] {
            #expect(Value.compare(vector, map) == -1, "\(map)")
            #expect(Value.compare(map, vector) == 1, "\(map)")
        }
        #expect(Value.compare(.vector([]), .vector([])) == 0)
    }

    @Test("vectors compare by length first, then element by element, unlike arrays")
    func vectorOrder() {
        #expect(Value.compare(.vector([100]), .vector([1, 2])) == -1, "the shorter vector first")
        #expect(Value.compare(.array([.double(100)]), .array([.double(1), .double(2)])) == 1, "arrays by elements")
        #expect(Value.compare(.vector([1, 2]), .vector([1, 3])) == -1)
        #expect(Value.compare(.vector([1, 3]), .vector([1, 2])) == 1)
        #expect(Value.compare(.vector([-1, 5]), .vector([-1, 5])) == 0)
        #expect(Value.compare(.vector([]), .vector([-100])) == -1)
    }

    @Test("a map is a vector exactly when __type__ is the string __vector__ and value is an array")
    func recognition() {
        #expect(Value.vector([0.5]).vectorElements == [.double(0.5)])
        #expect(map(["__type__": .string("__vector__"), "value": .array([.integer(3)])]).isVector)
        #expect(!map(["__type__": .string("__vector__")]).isVector)
        #expect(!map(["__type__": .string("__vector__"), "value": .string("x")]).isVector)
        #expect(!map(["__type__": .string("vector"), "value": .array([])]).isVector)
        #expect(!map(["type": .string("__vector__"), "value": .array([])]).isVector)
        #expect(!Value.array([.double(1)]).isVector)
    }

    @Test("index keys order vectors like Value.compare, in their own slot between arrays and maps")
    func indexKeys() {
        let ordered: [Value] = [
            .array([.double(5), .double(5), .double(5)]), .vector([]), .vector([9]), .vector([-1, 0]), .vector([-1, 1]),
            .vector([0, 0, 0]), .map(ObjectValue()),
        ]
        func key(_ value: Value, descending: Bool = false) -> [UInt8] {
            var encoder = IndexKeyEncoder()
            encoder.append(value, descending: descending)
            return encoder.bytes
        }
        for (a, b) in zip(ordered, ordered.dropFirst()) {
            #expect(Value.compare(a, b) == -1, "\(a) vs \(b)")
            #expect(BytewiseOrder.compare(key(a), key(b)) == -1, "\(a) vs \(b)")
            #expect(BytewiseOrder.compare(key(a, descending: true), key(b, descending: true)) == 1, "\(a) vs \(b)")
        }
        #expect(key(.vector([]))[0] == 0x35, "Firestore's vector label, 53")
        #expect(key(.vector([1])) == key(map(["__type__": .string("__vector__"), "value": .array([.integer(1)])])))
    }

    @Test("a range filter on a vector matches vectors only, by length first")
    func rangeFilter() {
        let filter = FieldFilter(field("v"), .greaterThan, .vector([1]))
        #expect(filter.matches(found(["v": .vector([0, 0])])))
        #expect(!filter.matches(found(["v": .vector([0])])))
        #expect(!filter.matches(found(["v": map(["a": .integer(1)])])))
        #expect(!filter.matches(found(["v": .array([.double(2)])])))
    }

    @Test("FieldValue.vector writes Firestore's reserved vector keys, which a user's own map may not use")
    func writeValidation() throws {
        let mutation = try builder.set(key, data: ["embedding": .vector([0.25, 1]), "n": 1])
        #expect(mutation == .set(
            key, value: object(["embedding": .vector([0.25, 1]), "n": .integer(1)]), precondition: .none, transforms: []))
        let merge = try builder.setMerge(key, data: ["embedding": .vector([2])])
        #expect(merge.fieldMask == mask("embedding"), "a vector is one leaf of a merge")
        let update = try builder.update(key, data: [field("a.v"): .vector([7])])
        #expect(update.fieldMask == mask("a.v"))
        expectError(
            "Invalid data. Document fields cannot begin and end with \"__\": names matching __.*__ are reserved by "
                + "Firestore. Rename the field. (found in field fake.__type__)"
        ) {
            try builder.set(key, data: ["fake": ["__type__": "__vector__", "value": [1.0]]])
        }
        #expect(try builder.queryValue(.vector([3])) == .vector([3]))
    }

    @Test("a written vector has 1 to 2,048 elements, as the server requires, and says so where it is")
    func vectorLimits() throws {
        _ = try builder.set(key, data: ["v": .vector(Array(repeating: 0.5, count: 2_048))])
        expectError("Invalid data. Cannot have a zero length vector. (found in field v in document rooms/r1)") {
            try builder.set(key, data: ["v": .vector([])])
        }
        expectError(
            "Invalid data. Vectors must be at most 2048 dimensions, but this one has 2049. (found in field m.v in "
                + "document rooms/r1)"
        ) {
            try builder.set(key, data: ["m": ["v": .vector(Array(repeating: 1, count: 2_049))]])
        }
        #expect(throws: ModelError.self) { try builder.update(key, data: [field("v"): .vector([])]) }
    }
}
