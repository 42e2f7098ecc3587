import CairnDatabaseCore
import CairnTestSupport
import Testing

@Suite("Write tree")
struct WriteTreeTests {
    private func node(_ json: JSONValue) throws -> Node { try Node(json: json) }
    private func path(_ string: String) throws -> DatabasePath { try DatabasePath(string) }

    @Test("removing a write that a later write covers needs no re-evaluation")
    func shadowedRemoval() throws {
        let writes = WriteTree()
        writes.addOverwrite(try path("a/b"), try node(.int(1)), writeId: 0, visible: true)
        writes.addOverwrite(try path("a"), try node(.object(["b": .int(2)])), writeId: 1, visible: true)
        #expect(!writes.removeWrite(0))
        #expect(try writes.shadowingWrite(path("a/b"))?.leafValue == .int(2))
        #expect(writes.removeWrite(1))
        #expect(try writes.shadowingWrite(path("a")) == nil)
    }

    @Test("removing a write under which another write lies re-layers the remaining writes")
    func overlappingRemoval() throws {
        let writes = WriteTree()
        writes.addOverwrite(try path("a"), try node(.object(["b": .int(1), "c": .int(1)])), writeId: 0, visible: true)
        writes.addOverwrite(try path("a/b"), try node(.int(2)), writeId: 1, visible: true)
        #expect(writes.removeWrite(0))
        #expect(try writes.shadowingWrite(path("a/b"))?.leafValue == .int(2))
        #expect(try writes.shadowingWrite(path("a/c")) == nil)
    }

    @Test("a hidden write is pending but not visible, and its removal changes nothing visible")
    func hiddenWrite() throws {
        let writes = WriteTree()
        writes.addOverwrite(try path("t"), try node(.int(5)), writeId: 0, visible: false)
        #expect(try writes.shadowingWrite(path("t")) == nil)
        #expect(try writes.calcCompleteEventCache(path("t"), serverCache: nil) == nil)
        #expect(try writes.calcCompleteEventCache(path("t"), serverCache: nil, includeHidden: true)?.leafValue == .int(5))
        #expect(!writes.removeWrite(0))
    }

    @Test("a merge writes each child and is removed child by child")
    func merge() throws {
        let writes = WriteTree()
        let server = try node(.object(["x": .int(0), "y": .int(0), "z": .int(0)]))
        writes.addMerge(try path("m"), [(DatabasePath(keys: ["x"]), try node(.int(1))), (DatabasePath(keys: ["y"]), .empty)], writeId: 0)
        #expect(try writes.calcCompleteEventCache(path("m"), serverCache: server)?.exportJSON() == .object(["x": .int(1), "z": .int(0)]))
        #expect(try writes.calcCompleteEventCache(path("m"), serverCache: nil) == nil)
        #expect(writes.removeWrite(0))
        #expect(try writes.calcCompleteEventCache(path("m"), serverCache: server)?.isEqual(to: server) == true)
    }

    @Test("complete children come from server children with writes, plus children written completely")
    func completeChildren() throws {
        let writes = WriteTree()
        writes.addOverwrite(try path("p/new"), try node(.int(1)), writeId: 0, visible: true)
        writes.addOverwrite(try path("p/old/deep"), try node(.int(2)), writeId: 1, visible: true)
        let serverChildren = try node(.object(["old": .object(["keep": .int(3)])]))
        let children = try writes.calcCompleteEventChildren(path("p"), serverChildren: serverChildren)
        #expect(children.exportJSON() == .object(["new": .int(1), "old": .object(["keep": .int(3), "deep": .int(2)])]))
        #expect(try writes.calcCompleteEventChildren(path("p"), serverChildren: nil).childKeys == ["new"])
    }

    @Test("an indexed slice skips the post and honours direction and count")
    func indexedSlice() throws {
        let writes = WriteTree()
        writes.addOverwrite(try path("s/c"), try node(.int(3)), writeId: 0, visible: true)
        let server = try node(.object(["a": .int(1), "b": .int(2), "d": .int(4)]))
        let after = try writes.calcIndexedSlice(path("s"), serverData: server, after: NamedNode("b", Node(leaf: .int(2))), count: 2, reverse: false, index: .value)
        #expect(after.map(\.name) == ["c", "d"])
        let before = try writes.calcIndexedSlice(path("s"), serverData: server, after: NamedNode("c", Node(leaf: .int(3))), count: 5, reverse: true, index: .value)
        #expect(before.map(\.name) == ["b", "a"])
        #expect(try writes.calcIndexedSlice(path("s"), serverData: nil, after: .min, count: 1, reverse: false, index: .value).isEmpty)
    }
    @Test("with no hidden write, the local data including hidden writes is the visible writes' data, as re-layering every write gives it")
    func includeHiddenWithoutHiddenWrites() throws {
        let keys = ["a", "b", "c"]
        var random = SeededRandom(seed: 15)
        func randomPath(_ depth: ClosedRange<Int>) -> DatabasePath {
            DatabasePath(keys: (0..<Int(random.next() % UInt64(depth.count)) + depth.lowerBound).map { _ in keys[Int(random.next() % 3)] })
        }
        for _ in 0..<60 {
            let writes = WriteTree()
            var ids: [Int] = []
            for writeId in 0..<Int(random.next() % 8) + 1 {
                let value = Node(leaf: .int(Int64(writeId)))
                if random.next() % 3 == 0 {
                    writes.addMerge(randomPath(0...2), [(randomPath(1...2), value), (randomPath(1...1), Node.empty)], writeId: writeId)
                } else {
                    writes.addOverwrite(randomPath(0...3), random.next() % 4 == 0 ? Node.empty : value, writeId: writeId, visible: true)
                }
                ids.append(writeId)
            }
            if random.next() % 2 == 0, let removed = ids.randomElement(using: &random) { _ = writes.removeWrite(removed) }
            let server = try node(.object(["a": .object(["b": .int(-1)]), "c": .int(-2)]))
            for _ in 0..<6 {
                let readPath = randomPath(0...3)
                for serverCache in [server.child(readPath), nil] {
                    let fast = writes.calcCompleteEventCache(readPath, serverCache: serverCache, includeHidden: true)
                    // Excluding an id no write has takes the re-layering path over every write.
                    let layered = writes.calcCompleteEventCache(readPath, serverCache: serverCache, excluding: [-1], includeHidden: true)
                    #expect(fast != nil)
                    #expect(fast.map { Node.canonicalJSON($0.exportJSON()) } == layered.map { Node.canonicalJSON($0.exportJSON()) }, "reading \(readPath)")
                }
            }
        }
    }
}
