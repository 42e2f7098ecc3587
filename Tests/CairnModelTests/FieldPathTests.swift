import Testing
@testable import CairnModel

@Suite("FieldPath from segments")
struct FieldPathSegmentsTests {
    @Test("segment text is literal: dots and backticks are part of the name")
    func literal() throws {
        let path = try FieldPath(["a.b", "`c`"])
        #expect(path.segments == ["a.b", "`c`"])
        #expect(path.count == 2)
    }

    @Test("at least one segment is required")
    func rejectsNoSegments() {
        expectInvalidArgument("Invalid field path. Provided names must not be empty") { _ = try FieldPath([]) }
    }

    @Test("an empty segment is rejected with its index")
    func rejectsEmptySegment() {
        expectInvalidArgument("Invalid field name at index 1. Field names must not be empty.") {
            _ = try FieldPath(["a", "", "c"])
        }
    }
}

@Suite("FieldPath dotted parsing")
struct FieldPathDottedTests {
    @Test(
        "dots separate segments",
        arguments: [
            ("a", ["a"]), ("address.city", ["address", "city"]), ("a.b.c", ["a", "b", "c"]),
            ("1.`x`", ["1", "`x`"]), ("é.😀", ["é", "😀"]), ("__name__", ["__name__"]), ("a b", ["a b"]),
        ])
    func parses(string: String, segments: [String]) throws {
        #expect(try FieldPath(parsingDotted: string).segments == segments)
    }

    @Test("empty paths, outer dots and '..' are rejected", arguments: ["", ".", "a.", ".a", "a..b", ".."])
    func rejectsEmptySegments(string: String) {
        expectInvalidArgument(
            "Invalid field path (\(string)). Paths must not be empty, begin with '.', end with '.', or contain '..'"
        ) { _ = try FieldPath(parsingDotted: string) }
    }

    @Test("the characters ~ * / [ ] are rejected", arguments: ["a~b", "*", "a/b", "tags[0]", "a]", "a.b~"])
    func rejectsReservedCharacters(string: String) {
        expectInvalidArgument(
            "Invalid field path (\(string)). Paths must not contain '~', '*', '/', '[', or ']'"
        ) { _ = try FieldPath(parsingDotted: string) }
    }

    @Test("'__name__' parses to the document key path")
    func documentKey() throws {
        #expect(try FieldPath(parsingDotted: "__name__").isDocumentKey)
        #expect(try !FieldPath(parsingDotted: "a.__name__").isDocumentKey)
    }
}

@Suite("FieldPath server format")
struct FieldPathServerFormatTests {
    @Test(
        "simple names stay bare; others are escaped and quoted",
        arguments: [
            (["a"], "a"), (["a", "b"], "a.b"), (["_a1", "Z_9"], "_a1.Z_9"), (["a.b"], "`a.b`"), (["1a"], "`1a`"),
            (["a b"], "`a b`"), (["a`b"], "`a\\`b`"), (["a\\b"], "`a\\\\b`"), (["é"], "`é`"),
            (["__name__"], "__name__"), (["x", "-"], "x.`-`"),
        ])
    func canonical(segments: [String], expected: String) throws {
        let path = try FieldPath(segments)
        #expect(path.canonicalString == expected)
        #expect(path.description == expected)
        #expect(try FieldPath(parsingServerFormat: expected) == path)
    }

    @Test(
        "backticks quote dots, a backslash escapes the next character",
        arguments: [
            ("a.`b.c`.d", ["a", "b.c", "d"]), ("a\\.b", ["a.b"]), ("`a`b`c`", ["abc"]), ("`a\\\\`", ["a\\"]),
            ("a\\xb", ["axb"]), ("`é.😀`", ["é.😀"]),
        ])
    func parses(string: String, segments: [String]) throws {
        #expect(try FieldPath(parsingServerFormat: string).segments == segments)
    }

    @Test(
        "malformed escaped paths are rejected",
        arguments: [
            ("", "Paths must not be empty"), ("a.", "end with '.'"), (".a", "begin with '.'"), ("a..b", "contain '..'"),
            ("``", "Paths must not be empty"), ("a\\", "Trailing escape character"), ("`a", "Unterminated `"),
            ("`a.b", "Unterminated `"),
        ])
    func rejects(string: String, phrase: String) {
        expectInvalidArgument("Invalid field path (\(string))", phrase) {
            _ = try FieldPath(parsingServerFormat: string)
        }
    }

    @Test("parsing the canonical string gives back the same path, for random segments")
    func roundTrip() throws {
        let alphabet: [String] = [
            "a", "Z", "_", "0", "9", ".", "`", "\\", " ", "é", "e\u{301}", "😀", "\u{FFFF}", "~", "[", "/",
            "\u{0}", "\n",
        ]
        var random = SeededRandom(seed: 0x5EED_CA1B)
        for _ in 0..<500 {
            let segments = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                let length = Int.random(in: 1...8, using: &random)
                return (0..<length).map { _ in alphabet.randomElement(using: &random)! }.joined()
            }
            let path = try FieldPath(segments)
            let parsed = try FieldPath(parsingServerFormat: path.canonicalString)
            #expect(parsed == path, "\(segments) → \(path.canonicalString)")
        }
    }
}

@Suite("FieldPath structure")
struct FieldPathStructureTests {
    @Test("parent, lastSegment and appending move one segment at a time")
    func navigation() throws {
        let city = try FieldPath(parsingDotted: "address.city")
        #expect(city.lastSegment == "city")
        #expect(city.parent == FieldPath(segments: ["address"]))
        #expect(city.parent?.parent == FieldPath(segments: []))
        #expect(FieldPath(segments: []).parent == nil && FieldPath(segments: []).lastSegment == nil)
        #expect(try FieldPath(["address"]).appending("city") == city)
        #expect(try FieldPath(["a"]).appending(FieldPath(["b", "c"])).segments == ["a", "b", "c"])
    }

    @Test("a path is a prefix of itself and of longer paths that start with it")
    func prefixes() throws {
        let a = try FieldPath(["a"])
        #expect(a.isPrefix(of: try FieldPath(["a", "b"])) && a.isPrefix(of: a))
        #expect(!a.isPrefix(of: try FieldPath(["ab"])))
        #expect(!(try FieldPath(["a", "b"])).isPrefix(of: a))
    }

    @Test("order is segment-wise by UTF-8 bytes with prefixes first")
    func order() throws {
        let ordered = try [["a"], ["a", "b"], ["a", "\u{FFFF}"], ["a", "😀"], ["a-"], ["b"]].map {
            s throws(ModelError) in try FieldPath(s)
        }
        #expect(ordered.reversed().sorted() == ordered)
    }

    @Test("equality and hashing use bytes, not Unicode equivalence")
    func hashing() throws {
        let composed = try FieldPath(["é"])
        let decomposed = try FieldPath(["e\u{301}"])
        #expect(composed != decomposed && Set([composed, decomposed]).count == 2)
        #expect(try FieldPath(["x", "é"]) == FieldPath(parsingDotted: "x.é"))
    }
}

