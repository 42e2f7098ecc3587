import CairnDatabaseCore
import Testing

@Suite("Node JSON import and export")
struct NodeJSONTests {
    /// `{"k": {"k": ... 1}}` with `levels` keys.
    private func nested(_ levels: Int) -> JSONValue {
        (0..<levels).reduce(JSONValue.int(1)) { inner, _ in .object(["k": inner]) }
    }

    @Test("32 levels of keys import; 33 are rejected with invalidData, not a crash")
    func depthLimit() throws {
        let deep = try Node(json: nested(32))
        #expect(deep.child(DatabasePath(keys: Array(repeating: "k", count: 32))).leafValue == .int(1))
        #expect(throws: DatabaseCoreError.self) { try Node(json: nested(33)) }
        do {
            _ = try Node(json: nested(1_000))
            Issue.record("a 1,000-level value was accepted")
        } catch {
            #expect(error.code == .invalidData)
        }
    }

    @Test("`.value` and `.priority` import a leaf with a priority and export the same form")
    func priorityRoundTrip() throws {
        let json = JSONValue.object(["a": .object([".value": .string("x"), ".priority": .double(1.5)]), ".priority": .string("top")])
        let node = try Node(json: json)
        #expect(node.priority.leafValue == .string("top"))
        #expect(node.immediateChild("a").priority.leafValue == .double(1.5))
        #expect(node.exportJSON() == json)
        #expect(node.valueJSON() == .object(["a": .string("x")]))
    }

    @Test("integers and doubles stay apart")
    func numberKinds() throws {
        #expect(try Node(json: .int(3)).leafValue == .int(3))
        #expect(try Node(json: .double(3.5)).leafValue == .double(3.5))
    }

    @Test("null, empty objects and empty children vanish")
    func emptiness() throws {
        #expect(try Node(json: .null).isEmpty)
        #expect(try Node(json: .object(["a": .null, "b": .object([:])])).isEmpty)
        #expect(try Node(json: .object([".priority": .int(1)])).isEmpty)
    }

    @Test("arrays become integer keys and export back as arrays when dense enough")
    func arrays() throws {
        let node = try Node(json: .array([.string("a"), .null, .string("c")]))
        #expect(node.childKeys == ["0", "2"])
        #expect(node.valueJSON() == .array([.string("a"), .null, .string("c")]))
        let sparse = try Node(json: .object(["0": .int(1), "10": .int(2)]))
        #expect(sparse.valueJSON() == .object(["0": .int(1), "10": .int(2)]))
    }

    @Test("bad keys, boolean priorities and non-finite numbers are errors with the path")
    func errors() {
        #expect(throws: DatabaseCoreError.self) { try Node(json: .object(["a.b": .int(1)])) }
        #expect(throws: DatabaseCoreError.self) { try Node(json: .object(["a": .object([".value": .int(1), ".priority": .bool(true)])])) }
        #expect(throws: DatabaseCoreError.self) { try Node(json: .double(.infinity)) }
        do {
            _ = try Node(json: .object(["x": .object(["bad#key": .int(1)])]))
        } catch {
            #expect(error.code == .invalidKey)
            #expect(error.message.contains("/x"))
        }
    }

    @Test("server values import as deferred leaves that order first among leaves")
    func serverValues() throws {
        let node = try Node(json: .object([".sv": .string("timestamp")]))
        #expect(node.leafValue == .deferred(.object([".sv": .string("timestamp")])))
        #expect(node.compareValue(to: try Node(json: .bool(false))) < 0)
    }

    @Test("values order null < false < true < numbers < strings < objects")
    func valueOrder() throws {
        let ordered: [JSONValue] = [.null, .bool(false), .bool(true), .int(-5), .double(2.5), .int(3), .string("A"), .string("a"), .object(["k": .int(1)])]
        let nodes = try ordered.map { try Node(json: $0) }
        for (a, b) in zip(nodes, nodes.dropFirst()) {
            #expect(a.compareValue(to: b) < 0)
        }
        #expect(try Node(json: .object(["x": .int(1)])).compareValue(to: try Node(json: .object(["y": .int(2)]))) == 0)
    }
}
