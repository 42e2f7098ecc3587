import Testing
@testable import CairnModel

@Suite("ObjectValue field access")
struct ValueFieldAccessTests: ValueFixtures {
    let user = ObjectValue([
        "name": .string("Ada"),
        "address": .map(ObjectValue(["city": .string("London"), "geo": .map(ObjectValue(["lat": .double(51.5)]))])),
        "tags": .array([.map(ObjectValue(["x": .integer(1)]))]),
    ])

    @Test("value(at:) follows nested maps")
    func readNested() {
        #expect(user.value(at: path("name")) == .string("Ada"))
        #expect(user.value(at: path("address.city")) == .string("London"))
        #expect(user.value(at: path("address.geo.lat")) == .double(51.5))
        #expect(user.value(at: path("address")) == user.fields["address"])
    }

    @Test("value(at:) is nil for missing fields and for paths through non-maps, including arrays")
    func readMissing() {
        #expect(user.value(at: path("age")) == nil)
        #expect(user.value(at: path("address.zip")) == nil)
        #expect(user.value(at: path("name.first")) == nil)
        #expect(user.value(at: path("tags.x")) == nil)
        #expect(user.value(at: path("tags.0.x")) == nil)
    }

    @Test("value(at:) of the empty path is the whole object")
    func readEmptyPath() {
        #expect(user.value(at: FieldPath(segments: [])) == .map(user))
    }

    @Test("a dot inside a segment is part of the key, not a separator")
    func dottedKey() {
        let object = ObjectValue(["a.b": .integer(1), "a": .map(ObjectValue(["b": .integer(2)]))])
        #expect(object.value(at: FieldPath(segments: ["a.b"])) == .integer(1))
        #expect(object.value(at: FieldPath(segments: ["a", "b"])) == .integer(2))
    }

    @Test("set creates missing intermediate maps")
    func setCreatesMaps() {
        var object = ObjectValue.empty
        object.set(.integer(1), at: path("a.b.c"))
        #expect(object == ObjectValue(["a": .map(ObjectValue(["b": .map(ObjectValue(["c": .integer(1)]))]))]))
    }

    @Test("set replaces a non-map intermediate and keeps the siblings of map intermediates")
    func setReplacesNonMaps() {
        var object = user
        object.set(.boolean(true), at: path("name.first"))
        object.set(.string("NW1"), at: path("address.zip"))
        #expect(object.value(at: path("name")) == .map(ObjectValue(["first": .boolean(true)])))
        #expect(object.value(at: path("address.city")) == .string("London"))
        #expect(object.value(at: path("address.zip")) == .string("NW1"))
        #expect(user.value(at: path("name")) == .string("Ada"))  // value semantics: the original is untouched
    }

    @Test("set overwrites an existing leaf, including a whole map")
    func setOverwrites() {
        var object = user
        object.set(.null, at: path("address"))
        #expect(object.value(at: path("address")) == .null)
        #expect(object.value(at: path("address.city")) == nil)
    }

    @Test("delete removes a leaf and keeps the now-empty parent map")
    func deleteLeaf() {
        var object = ObjectValue(["a": .map(ObjectValue(["b": .integer(1)]))])
        object.delete(at: path("a.b"))
        #expect(object == ObjectValue(["a": .map(ObjectValue())]))
        object.delete(at: path("a"))
        #expect(object.isEmpty)
    }

    @Test("delete of a missing path, or one through a non-map, changes nothing")
    func deleteMissing() {
        var object = user
        object.delete(at: path("age"))
        object.delete(at: path("name.first"))
        object.delete(at: path("address.zip.code"))
        object.delete(at: path("tags.x"))
        #expect(object == user)
    }

    @Test("isEmpty and empty")
    func emptiness() {
        #expect(ObjectValue.empty.isEmpty)
        #expect(ObjectValue().isEmpty)
        #expect(!user.isEmpty)
    }

    @Test("convenience accessors tell types apart")
    func accessors() {
        #expect(Value.double(.nan).isNaN && !Value.double(1).isNaN && !Value.integer(0).isNaN)
        #expect(Value.integer(1).isNumber && Value.double(1).isNumber && !Value.string("1").isNumber)
        #expect(Value.array([]).isArray && !Value.map(.empty).isArray)
        #expect(Value.array([.null]).arrayElements == [.null] && Value.null.arrayElements == nil)
        #expect(Value.map(user).mapValue == user && Value.array([]).mapValue == nil)
        #expect(Value.null.isNull && !Value.boolean(false).isNull)
    }
}
