import CairnDatabaseCore
import Testing

@Suite("Indexes")
struct DatabaseIndexTests {
    private func children(_ json: JSONValue, by index: DatabaseIndex) throws -> [String] {
        try Node(json: json).sortedChildren(by: index).map(\.name)
    }

    @Test("priority order: no priority, then numbers, then strings, ties by key")
    func priorityOrder() throws {
        let json = JSONValue.object([
            "s": .object([".value": .int(1), ".priority": .string("a")]),
            "n2": .object([".value": .int(1), ".priority": .int(2)]),
            "n1": .object([".value": .int(1), ".priority": .double(1.5)]),
            "b": .int(1),
            "a": .int(1),
        ])
        #expect(try children(json, by: .priority) == ["a", "b", "n1", "n2", "s"])
    }

    @Test("child-path order: missing values first, then by value, ties by key; nested paths work")
    func childOrder() throws {
        let json = JSONValue.object([
            "x": .object(["meta": .object(["age": .int(30)])]),
            "y": .object(["meta": .object(["age": .int(20)])]),
            "z": .object(["other": .int(1)]),
            "w": .object(["meta": .object(["age": .int(20)])]),
        ])
        #expect(try children(json, by: .child(DatabasePath(keys: ["meta", "age"]))) == ["z", "w", "y", "x"])
    }

    @Test("value order and key order")
    func valueAndKeyOrder() throws {
        let json = JSONValue.object(["10": .string("a"), "2": .bool(true), "b": .int(5), "a": .object(["k": .int(1)])])
        #expect(try children(json, by: .value) == ["2", "b", "10", "a"])
        #expect(try children(json, by: .key) == ["2", "10", "a", "b"])
    }

    @Test("posts bound every child: min below, max above, a value post between")
    func posts() throws {
        let node = try Node(json: .object(["a": .int(1), "b": .string("z"), "c": .object(["k": .int(1)])]))
        for index in [DatabaseIndex.priority, .key, .value, .child(DatabasePath(keys: ["k"]))] {
            for child in node.sortedChildren(by: index) {
                #expect(index.compare(index.minPost, child) < 0)
                #expect(index.compare(child, index.maxPost) < 0)
            }
        }
        let post = DatabaseIndex.value.makePost(Node(leaf: .int(1)), name: KeyOrder.maxName)
        #expect(DatabaseIndex.value.compare(NamedNode("a", Node(leaf: .int(1))), post) < 0)
        #expect(DatabaseIndex.value.compare(post, NamedNode("b", Node(leaf: .string("z")))) < 0)
    }

    @Test("a child move is an indexed-value change only for the query's index")
    func indexedValueChanged() throws {
        let old = try Node(json: .object(["age": .int(1), "name": .string("x")]))
        let renamed = try Node(json: .object(["age": .int(1), "name": .string("y")]))
        #expect(!DatabaseIndex.child(DatabasePath(keys: ["age"])).indexedValueChanged(old, renamed))
        #expect(DatabaseIndex.child(DatabasePath(keys: ["name"])).indexedValueChanged(old, renamed))
        #expect(!DatabaseIndex.key.indexedValueChanged(old, renamed))
        #expect(DatabaseIndex.value.indexedValueChanged(old, renamed))
        #expect(!DatabaseIndex.priority.indexedValueChanged(old, renamed))
    }
}
