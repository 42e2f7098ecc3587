import CairnDatabaseCore
import Testing

@Suite("Query parameters from the wire")
struct QueryParamsWireTests {
    static let shapes: [QueryParams] = {
        let age = DatabaseIndex.child(DatabasePath(keys: ["profile", "age"]))
        return [
            QueryParams(),
            try! QueryParams().orderedBy(.key).starting(after: .string("b")).limited(toFirst: 2),
            try! QueryParams().orderedBy(age).starting(at: .int(20), childKey: "k").ending(before: .int(30)),
            try! QueryParams().orderedBy(.value).equal(to: .bool(true)).limited(toLast: 3),
            try! QueryParams().ending(at: .string("m")).limited(toLast: 5),
            try! QueryParams().orderedBy(.priority).starting(after: .double(1.5)),
        ]
    }()

    @Test("the wire form the client sends reads back as the same parameters", arguments: shapes)
    func roundTrip(params: QueryParams) throws {
        #expect(try QueryParams(wireObject: params.wireObject) == params)
    }

    @Test("the iOS form of startAfter (sn [MAX_NAME], no flag) selects from the same post as the JS form")
    func iosStartAfter() throws {
        let ios = try QueryParams(wireObject: ["i": .string("age"), "sp": .int(20), "sn": .string("[MAX_NAME]")])
        let js = try QueryParams().orderedBy(.child(DatabasePath(keys: ["age"]))).starting(after: .int(20))
        #expect(ios.startPost.name == js.startPost.name)
        #expect(ios.startPost.node.isEqual(to: js.startPost.node))
    }

    @Test("a limit without vf keeps the first children")
    func limitWithoutViewFrom() throws {
        let params = try QueryParams(wireObject: ["l": .int(4)])
        #expect(params.limit == 4 && params.isViewFromLeft)
    }

    @Test("bad wire parameters are invalidQuery errors", arguments: [
        ["i": JSONValue.int(1)], ["l": .int(0)], ["l": .int(1 << 40)], ["l": .string("3")],
        ["l": .int(1), "vf": .string("x")], ["sp": .int(1), "sin": .string("yes")], ["sp": .int(1), "sn": .int(2)],
        ["i": .string("a.b")], ["i": .string(".key"), "sp": .int(1)],
    ])
    func invalid(object: [String: JSONValue]) {
        #expect(throws: DatabaseCoreError.self) { _ = try QueryParams(wireObject: object) }
    }
}
