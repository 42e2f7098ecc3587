import CairnDatabaseCore
import Testing

/// Expected hashes computed independently (Python `hashlib.sha1` + base64) from Firebase's documented text forms.
@Suite("Node hash")
struct NodeHashTests {
    @Test("a string leaf hashes `string:<value>`")
    func stringLeaf() throws {
        #expect(try Node(json: .string("hello")).hash == "z6sRbrNLwbHX5fdjpvsTtWgXUFc=")
    }

    @Test("numbers hash their IEEE-754 bits; an integer and the equal double hash alike")
    func numbers() throws {
        #expect(Node.ieee754Hex(1) == "3ff0000000000000")
        #expect(Node.ieee754Hex(3.14) == "40091eb851eb851f")
        #expect(Node.ieee754Hex(-0.0) == "8000000000000000")
        #expect(try Node(json: .int(1)).hash == "YPVfR2bXt/lcDjiQZ8pOkAd3qkQ=")
        #expect(try Node(json: .double(1)).hash == "YPVfR2bXt/lcDjiQZ8pOkAd3qkQ=")
        #expect(try Node(json: .double(3.14)).hash == "Lttj+ei7cyd5Cle6qMaTbN8zKUs=")
    }

    @Test("a boolean hashes `boolean:true`")
    func boolean() throws {
        #expect(try Node(json: .bool(true)).hash == "E5z61QM0lN/U2WsOnusszCTkR8M=")
    }

    @Test("a leaf with a priority prefixes `priority:<type>:<value>:`")
    func leafPriority() throws {
        let node = try Node(json: .object([".value": .string("v"), ".priority": .string("p")]))
        #expect(node.hash == "R0MIwvHETT8eZK7iUSai21aukVY=")
    }

    @Test("children hash `:key:childHash` in priority order, after the node's own priority")
    func children() throws {
        let node = try Node(json: .object(["b": .string("x"), "a": .int(1), ".priority": .int(2)]))
        #expect(node.hash == "iAmDbRWsyx83xktsSl9KIPpZq5c=")
        // "a" has a priority, so it follows "b" (no priority) in priority order.
        let prioritized = try Node(json: .object(["a": .object([".value": .int(1), ".priority": .int(2)]), "b": .int(1)]))
        #expect(prioritized.hash == "H1jeUJqNDaUp47a1kwiwwypGtcc=")
    }

    @Test("the empty node hashes to the empty string")
    func empty() throws {
        #expect(Node.empty.hash == "")
        #expect(try Node(json: .object([:])).hash == "")
    }
}
