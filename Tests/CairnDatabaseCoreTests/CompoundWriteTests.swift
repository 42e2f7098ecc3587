import CairnDatabaseCore
import Testing

@Suite("Compound writes")
struct CompoundWriteTests {
    private func node(_ json: JSONValue) throws -> Node { try Node(json: json) }
    private func path(_ string: String) throws -> DatabasePath { try DatabasePath(string) }

    @Test("an empty compound write leaves a node unchanged")
    func emptyWrite() throws {
        let base = try node(.object(["a": .int(1)]))
        #expect(CompoundWrite().isEmpty)
        #expect(CompoundWrite().apply(to: base).isEqual(to: base))
    }

    @Test("a deeper write is folded into the write above it")
    func deeperWriteFolds() throws {
        let write = try CompoundWrite()
            .adding(path("a"), node(.object(["b": .int(1), "c": .int(2)])))
            .adding(path("a/b"), node(.int(3)))
        #expect(try write.completeNode(at: path("a"))?.exportJSON() == .object(["b": .int(3), "c": .int(2)]))
        #expect(try write.tree.value(at: path("a/b")) == nil)
    }

    @Test("a write above replaces the writes below it")
    func shallowerWriteShadows() throws {
        let write = try CompoundWrite()
            .adding(path("a/b"), node(.int(1)))
            .adding(path("a"), node(.object(["x": .int(2)])))
        #expect(try write.completeNode(at: path("a/b")).map(\.isEmpty) == true)
        #expect(try write.apply(to: .empty).exportJSON() == .object(["a": .object(["x": .int(2)])]))
    }

    @Test("removing a path drops the writes at and below it, not above")
    func removal() throws {
        let write = try CompoundWrite()
            .adding(path("a/b"), node(.int(1)))
            .adding(path("c"), node(.int(2)))
            .removing(path("a"))
        #expect(try !write.hasCompleteWrite(at: path("a/b")))
        #expect(try write.hasCompleteWrite(at: path("c")))
        let above = try CompoundWrite().adding(path("a"), node(.object(["b": .int(1)]))).removing(path("a/b"))
        #expect(try above.hasCompleteWrite(at: path("a/b")))
    }

    @Test("child writes see a shadowing write as a root write")
    func childWrite() throws {
        let write = try CompoundWrite().adding(path("a"), node(.object(["b": .object(["c": .int(1)])])))
        let child = try write.childWrite(path("a/b"))
        #expect(child.completeNode(at: .root)?.exportJSON() == .object(["c": .int(1)]))
        #expect(try write.childWrite(path("z")).isEmpty)
    }

    @Test("a priority write applies only to a node that exists")
    func priorityWrite() throws {
        let write = try CompoundWrite().adding(path("a/.priority"), node(.int(5)))
        #expect(try write.apply(to: .empty).isEmpty)
        let applied = try write.apply(to: node(.object(["a": .string("x")])))
        #expect(applied.immediateChild("a").priority.leafValue == .int(5))
    }

    @Test("complete children: a root write's children, else the children written completely")
    func completeChildren() throws {
        let rootWrite = try CompoundWrite().adding(.root, node(.object(["a": .int(1), "b": .int(2)])))
        #expect(rootWrite.completeChildren.map(\.name) == ["a", "b"])
        let partial = try CompoundWrite().adding(path("a"), node(.int(1))).adding(path("b/c"), node(.int(2)))
        #expect(partial.completeChildren.map(\.name) == ["a"])
    }

    @Test("applying random writes equals applying them one by one to the node")
    func randomWrites() throws {
        let keys = ["a", "b", "c"]
        for _ in 0..<100 {
            var compound = CompoundWrite()
            var expected = try node(.object(["a": .object(["b": .int(0)]), "c": .int(0)]))
            let base = expected
            for value in 0..<Int.random(in: 1...6) {
                let writePath = DatabasePath(keys: (0..<Int.random(in: 1...3)).map { _ in keys.randomElement()! })
                let written = try node(.int(Int64(value)))
                compound = compound.adding(writePath, written)
                expected = expected.updateChild(writePath, written)
            }
            #expect(compound.apply(to: base).isEqual(to: expected))
        }
    }
}
