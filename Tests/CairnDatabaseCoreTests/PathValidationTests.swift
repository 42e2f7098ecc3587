import CairnDatabaseCore
import Testing

@Suite("Path and key validation")
struct PathValidationTests {
    @Test("slashes are separators; empty segments are dropped")
    func parsing() throws {
        #expect(try DatabasePath("/a//b/").keys == ["a", "b"])
        #expect(try DatabasePath("").isEmpty)
        #expect(try DatabasePath("a/b").description == "/a/b")
    }

    @Test("keys with . # $ [ ] or control characters are rejected", arguments: ["a.b", "a#", "$a", "[", "]", "a\u{0}", "tab\tkey", "del\u{7F}"])
    func forbiddenCharacters(key: String) {
        #expect(throws: DatabaseCoreError.self) { try KeyValidation.validateKey(key) }
        #expect(throws: DatabaseCoreError.self) { try DatabasePath("ok/" + key) }
    }

    @Test("a key may be 768 bytes of UTF-8, not 769")
    func keyLength() throws {
        try KeyValidation.validateKey(String(repeating: "a", count: 768))
        #expect(throws: DatabaseCoreError.self) { try KeyValidation.validateKey(String(repeating: "a", count: 769)) }
        // 256 three-byte characters are 768 bytes.
        try KeyValidation.validateKey(String(repeating: "€", count: 256))
        #expect(throws: DatabaseCoreError.self) { try KeyValidation.validateKey(String(repeating: "€", count: 257)) }
    }

    @Test("a path may be 32 keys deep, not 33")
    func pathDepth() throws {
        _ = try DatabasePath(Array(repeating: "k", count: 32).joined(separator: "/"))
        #expect(throws: DatabaseCoreError.self) { try DatabasePath(Array(repeating: "k", count: 33).joined(separator: "/")) }
    }

    @Test(".info at the root and .priority at the end are allowed")
    func specialKeys() throws {
        #expect(try DatabasePath(".info/connected").keys == [".info", "connected"])
        #expect(try DatabasePath("a/.priority").back == ".priority")
        #expect(throws: DatabaseCoreError.self) { try DatabasePath("a/.info") }
    }

    @Test("contains and relative paths")
    func relations() throws {
        let outer = try DatabasePath("a")
        let inner = try DatabasePath("a/b/c")
        #expect(outer.contains(inner))
        #expect(!inner.contains(outer))
        #expect(DatabasePath.relative(from: outer, to: inner)?.keys == ["b", "c"])
        #expect(DatabasePath.relative(from: inner, to: outer) == nil)
        #expect(try !DatabasePath("ab").contains(DatabasePath("a")))
    }
}
