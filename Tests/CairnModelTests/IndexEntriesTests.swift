import Testing
@testable import CairnModel

@Suite("Index entries of a document")
struct IndexEntriesTests: IndexFixtures {
    func encoded(_ columns: [(Value, Bool)]) -> [UInt8] {
        var encoder = IndexKeyEncoder()
        for (value, descending) in columns { encoder.append(value, descending: descending) }
        return encoder.bytes
    }

    func encodedKey(_ path: String, descending: Bool = false) -> [UInt8] {
        var encoder = IndexKeyEncoder()
        encoder.appendDocumentKey(key(path), descending: descending)
        return encoder.bytes
    }

    @Test("the directional value concatenates each segment's value in its direction, and the key follows")
    func directionalValue() throws {
        let entries = index("c", "a", "b desc").entries(for: doc("c/d", ["a": .string("x"), "b": .integer(7)]))
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry.directionalValue == encoded([(.string("x"), false), (.integer(7), true)]))
        #expect(entry.arrayValue == nil)
        #expect(entry.key == key("c/d"))
        #expect(entry.sortKey == entry.directionalValue + encodedKey("c/d", descending: true))
    }

    @Test("a document missing any directional field has no entry")
    func missingField() {
        let index = index("c", "a", "b")
        #expect(index.entries(for: doc("c/d", ["a": .integer(1)])).isEmpty)
        #expect(index.entries(for: doc("c/d", ["b": .integer(1)])).isEmpty)
        #expect(index.entries(for: doc("c/d", ["a": .null, "b": .null])).count == 1)
    }

    @Test("nested fields are read through maps, and a non-map on the way means the field is missing")
    func nestedFields() {
        let index = index("c", "address.city")
        let inOslo = doc("c/d", ["address": .map(ObjectValue(["city": .string("Oslo")]))])
        #expect(index.entries(for: inOslo).map(\.directionalValue) == [encoded([(.string("Oslo"), false)])])
        #expect(index.entries(for: doc("c/d", ["address": .string("Oslo")])).isEmpty)
        #expect(index.entries(for: doc("c/d", ["address": .map(ObjectValue())])).isEmpty)
    }

    @Test("a contains segment gives one entry per distinct element, the element first in the sort key")
    func arrayElements() {
        let index = index("c", "tags contains", "a")
        let document = doc("c/d", ["tags": .array([.string("b"), .integer(1), .string("b"), .double(1.0)]), "a": .null])
        let entries = index.entries(for: document)
        #expect(entries.map(\.arrayValue) == [encoded([(.integer(1), false)]), encoded([(.string("b"), false)])])
        for entry in entries {
            #expect(entry.directionalValue == encoded([(.null, false)]))
            #expect(entry.sortKey == entry.arrayValue! + entry.directionalValue + encodedKey("c/d"))
        }
    }

    @Test("a contains segment gives no entry for a missing field, a non-array or an empty array")
    func noArray() {
        let index = index("c", "tags contains")
        #expect(index.entries(for: doc("c/d")).isEmpty)
        #expect(index.entries(for: doc("c/d", ["tags": .string("swift")])).isEmpty)
        #expect(index.entries(for: doc("c/d", ["tags": .array([])])).isEmpty)
        #expect(index.entries(for: doc("c/d", ["tags": .array([.array([])])])).count == 1)
    }

    @Test("a deleted document or one of another collection group has no entry; any collection of the group does")
    func scope() {
        let index = index("c", "a")
        var deleted = doc("c/d", ["a": .integer(1)])
        deleted.state = .noDocument
        #expect(index.entries(for: deleted).isEmpty)
        #expect(index.entries(for: doc("other/d", ["a": .integer(1)])).isEmpty)
        #expect(index.entries(for: doc("x/y/c/d", ["a": .integer(1)])).count == 1)
    }

    @Test("a __name__ segment indexes the document key")
    func documentKeySegment() {
        let entries = index("c", "a", "__name__ desc").entries(for: doc("c/d", ["a": .integer(1)]))
        #expect(entries.map(\.directionalValue) == [encoded([(.integer(1), false)]) + encodedKey("c/d", descending: true)])
    }

    @Test("sort keys order mixed-type values like Value.compare, ties by key, each in the segment's direction")
    func mixedTypeOrder() {
        let values: [Value] = [
            .null, .boolean(false), .double(.nan), .integer(-3), .double(1.5), .integer(2), .timestamp(Timestamp(seconds: 1, nanoseconds: 0)),
            .string(""), .string("a"), .bytes([0]), ref("c/x"), .geoPoint(GeoPoint(latitude: 0, longitude: 0)), .array([.integer(1)]),
            .map(ObjectValue(["k": .integer(1)])),
        ]
        var documents: [Document] = []
        for (position, value) in values.enumerated() {
            documents.append(doc("c/d\(position)b", ["a": value]))
            documents.append(doc("c/d\(position)a", ["a": value]))
        }
        for descending in [false, true] {
            let index = index("c", descending ? "a desc" : "a")
            let byKey = documents.flatMap(index.entries(for:)).sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
            let byValue = documents.sorted { x, y in
                let order = Value.compare(x.data.fields["a"]!, y.data.fields["a"]!)
                if order != 0 { return descending ? order > 0 : order < 0 }
                return descending ? x.key > y.key : x.key < y.key
            }
            #expect(byKey.map(\.key) == byValue.map(\.key), "descending: \(descending)")
        }
    }

    @Test("numbers equal across int and double tie in the index and are ordered by key")
    func numbersTie() {
        let index = index("c", "a")
        let one = index.entries(for: doc("c/b", ["a": .integer(1)]))[0]
        let oneDouble = index.entries(for: doc("c/a", ["a": .double(1.0)]))[0]
        #expect(one.directionalValue == oneDouble.directionalValue)
        #expect(oneDouble.sortKey.lexicographicallyPrecedes(one.sortKey))
    }

    @Test("entries are equal exactly when their sort keys are")
    func equality() {
        let index = index("c", "a")
        let a = index.entries(for: doc("c/d", ["a": .integer(1)]))
        let b = index.entries(for: doc("c/d", ["a": .double(1)]))
        let c = index.entries(for: doc("c/e", ["a": .integer(1)]))
        #expect(a == b)
        #expect(a != c)
        #expect(Set(a + b + c).count == 2)
    }
}
