import CairnDatabaseCore
import Testing

@Suite("Query parameters")
struct QueryParamsTests {
    @Test("the default query has no wire parameters and the identifier `default`")
    func defaultQuery() {
        let params = QueryParams()
        #expect(params.isDefault)
        #expect(params.wireObject.isEmpty)
        #expect(params.identifier == "default")
    }

    @Test("startAfter without a key becomes startAt with [MAX_NAME], exclusive")
    func startAfterNormalisation() throws {
        let params = try QueryParams().orderedBy(.child(DatabasePath(keys: ["age"]))).starting(after: .int(20))
        #expect(params.wireObject == ["sp": .int(20), "sn": .string("[MAX_NAME]"), "sin": .bool(false), "i": .string("age")])
        #expect(params.startPost.name == KeyOrder.maxName)
    }

    @Test("endBefore without a key becomes endAt with [MIN_NAME], exclusive")
    func endBeforeNormalisation() throws {
        let params = try QueryParams().ending(before: .string("m"))
        #expect(params.wireObject == ["ep": .string("m"), "en": .string("[MIN_NAME]"), "ein": .bool(false)])
    }

    @Test("ordered by key, startAfter keeps no key and stays exclusive")
    func keyIndexStartAfter() throws {
        let params = try QueryParams().orderedBy(.key).starting(after: .string("b"))
        #expect(params.wireObject == ["sp": .string("b"), "sin": .bool(false), "i": .string(".key")])
        #expect(params.startPost.name == "b")
    }

    @Test("equalTo sets both bounds; limits set l and vf")
    func equalToAndLimits() throws {
        let params = try QueryParams().orderedBy(.value).equal(to: .bool(true), childKey: "k").limited(toLast: 3)
        #expect(params.wireObject == [
            "sp": .bool(true), "sn": .string("k"), "sin": .bool(true),
            "ep": .bool(true), "en": .string("k"), "ein": .bool(true),
            "l": .int(3), "vf": .string("r"), "i": .string(".value"),
        ])
        #expect(params.identifier.hasPrefix("{\"ein\":true"))
    }

    @Test("a query that only orders loads all data and listens as the default query")
    func loadAllNormalisation() throws {
        let params = try QueryParams().orderedBy(.child(DatabasePath(keys: ["score"])))
        #expect(params.loadsAllData)
        #expect(!params.isDefault)
        let query = QuerySpec(path: DatabasePath(keys: ["scores"]), params: params)
        #expect(query.forListening.params.isDefault)
        #expect(query.identifier == "{\"i\":\"score\"}")
    }

    @Test("Firebase's invalid combinations are errors", arguments: [
        "twoOrders", "twoStarts", "twoLimits", "zeroLimit", "keyIndexNumber", "keyIndexChildKey", "priorityBool", "objectBound",
    ])
    func invalid(_ name: String) {
        #expect(throws: DatabaseCoreError.self) {
            let base = QueryParams()
            switch name {
            case "twoOrders": _ = try base.orderedBy(.key).orderedBy(.value)
            case "twoStarts": _ = try base.starting(at: .int(1)).starting(after: .int(2))
            case "twoLimits": _ = try base.limited(toFirst: 1).limited(toLast: 1)
            case "zeroLimit": _ = try base.limited(toFirst: 0)
            case "keyIndexNumber": _ = try base.orderedBy(.key).starting(at: .int(1))
            case "keyIndexChildKey": _ = try base.orderedBy(.key).starting(at: .string("a"), childKey: "b")
            case "priorityBool": _ = try base.starting(at: .bool(true))
            default: _ = try base.starting(at: .object(["a": .int(1)]))
            }
        }
    }
}
