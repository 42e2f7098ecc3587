import Testing
@testable import CairnModel

@Suite("ResourcePath parsing")
struct ResourcePathParsingTests {
    @Test(
        "slashes separate segments; leading and trailing slashes are ignored",
        arguments: [
            ("", [String]()), ("/", []), ("users", ["users"]), ("/users/ada/", ["users", "ada"]),
            ("a/b/c/d", ["a", "b", "c", "d"]), ("a b/ c ", ["a b", " c "]), ("é/😀", ["é", "😀"]),
        ])
    func parses(string: String, segments: [String]) throws {
        #expect(try ResourcePath(parsing: string).segments == segments)
    }

    @Test("an empty segment is an error naming the path", arguments: ["a//b", "//", "//a", "a//", "a/b//c/d"])
    func rejectsEmptySegments(string: String) {
        expectInvalidArgument("Invalid path (\(string))", "must not contain //") {
            _ = try ResourcePath(parsing: string)
        }
    }

    @Test("the byte '/' separates even when a combining mark follows it")
    func splitsOnBytesNotGraphemes() throws {
        // "/\u{301}" is one grapheme cluster; splitting on Characters would keep one segment.
        #expect(try ResourcePath(parsing: "a/\u{301}b").segments == ["a", "\u{301}b"])
    }

    @Test("description joins the segments with '/'")
    func description() throws {
        #expect(try ResourcePath(parsing: "/users/ada/").description == "users/ada")
        #expect(ResourcePath.root.description == "")
    }
}

@Suite("ResourcePath structure")
struct ResourcePathStructureTests {
    @Test("odd segment counts are collections, even non-zero counts are documents")
    func kinds() {
        let cases: [([String], collection: Bool, document: Bool)] = [
            ([], false, false), (["users"], true, false), (["users", "ada"], false, true),
            (["users", "ada", "posts"], true, false), (["users", "ada", "posts", "p1"], false, true),
        ]
        for (segments, collection, document) in cases {
            let path = ResourcePath(segments: segments)
            #expect(path.isCollectionPath == collection, "\(segments)")
            #expect(path.isDocumentPath == document, "\(segments)")
        }
    }

    @Test("a path is a prefix of itself and of its descendants, not of siblings")
    func prefixes() {
        let users = ResourcePath(segments: ["users"])
        let ada = ResourcePath(segments: ["users", "ada"])
        #expect(users.isPrefix(of: ada) && ada.hasPrefix(users))
        #expect(ada.isPrefix(of: ada) && ResourcePath.root.isPrefix(of: ada))
        #expect(!ada.isPrefix(of: users))
        #expect(!ResourcePath(segments: ["user"]).isPrefix(of: ada))
        let decomposed = ResourcePath(segments: ["users", "e\u{301}"])
        #expect(!decomposed.isPrefix(of: ResourcePath(segments: ["users", "é", "x"])))
    }

    @Test("a collection path needs an odd number of non-empty segments")
    func validatesCollectionPaths() throws {
        try ResourcePath.validateCollectionPath(ResourcePath(segments: ["users", "ada", "posts"]))
        expectInvalidArgument(
            "Invalid collection reference. Collection references must have an odd number of segments, "
                + "but users/ada has 2"
        ) { try ResourcePath.validateCollectionPath(ResourcePath(segments: ["users", "ada"])) }
        expectInvalidArgument("the root path has 0") { try ResourcePath.validateCollectionPath(.root) }
        expectInvalidArgument("Segment 2 is empty") {
            try ResourcePath.validateCollectionPath(ResourcePath(segments: ["users", "", "posts"]))
        }
    }
}

@Suite("Path order and equality")
struct PathOrderTests {
    @Test("a proper prefix sorts before every longer path")
    func prefixFirst() {
        #expect(ResourcePath.root < ResourcePath(segments: ["a"]))
        #expect(ResourcePath(segments: ["a"]) < ResourcePath(segments: ["a", "b"]))
        #expect(ResourcePath(segments: ["a", "z"]) < ResourcePath(segments: ["b"]))
    }

    @Test("segments compare one by one, not as the joined string")
    func segmentWise() {
        // Joined, "a-/b" < "a/b" because '-' (0x2D) < '/' (0x2F); segment-wise "a" < "a-".
        #expect(ResourcePath(segments: ["a", "b"]) < ResourcePath(segments: ["a-", "b"]))
    }

    @Test("segments compare by UTF-8 bytes, where UTF-16 order would disagree")
    func utf8NotUTF16() {
        // U+FFFF is EF BF BF, U+1F600 is F0 9F 98 80; in UTF-16 U+1F600 (D83D DE00) sorts first.
        #expect(ResourcePath(segments: ["\u{FFFF}"]) < ResourcePath(segments: ["😀"]))
        // U+FF5E is EF BD 9E; U+10000 is F0 90 80 80; UTF-16 has D800 DC00 < FF5E.
        #expect(ResourcePath(segments: ["a", "～"]) < ResourcePath(segments: ["a", "\u{10000}"]))
    }

    @Test("canonically equivalent but different strings are different, ordered by bytes")
    func noUnicodeNormalization() {
        let composed = ResourcePath(segments: ["é"])  // C3 A9
        let decomposed = ResourcePath(segments: ["e\u{301}"])  // 65 CC 81
        #expect(composed != decomposed)
        #expect(decomposed < composed)
        #expect(Set([composed, decomposed]).count == 2)
    }

    @Test("numeric Datastore IDs sort first and by value; equal values fall back to bytes")
    func numericIDs() {
        let ordered = ["__id-3__", "__id2__", "__id07__", "__id7__", "__id10__", "__idx__", "a", "b"]
        let paths = ordered.map { ResourcePath(segments: ["c", $0]) }
        #expect(paths.shuffled().sorted() == paths)
        #expect(PathSegmentOrder.numericID("__id9223372036854775807__") == Int64.max)
        #expect(PathSegmentOrder.numericID("__id9223372036854775808__") == nil)
        #expect(PathSegmentOrder.numericID("__id__") == nil)
    }
}

@Suite("DocumentKey")
struct DocumentKeyTests {
    @Test("a document path has an even, non-zero number of segments", arguments: ["users", "users/ada/posts", ""])
    func rejectsOddPaths(string: String) throws {
        let path = try ResourcePath(parsing: string)
        let name = string.isEmpty ? "the root path" : string
        expectInvalidArgument(
            "Invalid document reference. Document references must have an even number of segments, "
                + "but \(name) has \(path.count)"
        ) { _ = try DocumentKey(parsing: string) }
    }

    @Test("parsing a document path gives its collection and ID")
    func parses() throws {
        let key = try DocumentKey(parsing: "/users/ada/posts/p1/")
        #expect(key.path.segments == ["users", "ada", "posts", "p1"])
        #expect(key.collectionPath == ResourcePath(segments: ["users", "ada", "posts"]))
        #expect(key.collectionGroup == "posts" && key.documentID == "p1")
        #expect(key.description == "users/ada/posts/p1")
    }

    @Test("validating rejects empty segments that init(segments:) let through")
    func rejectsEmptySegments() {
        expectInvalidArgument("Segment 2 is empty") {
            _ = try DocumentKey(validating: ResourcePath(segments: ["users", ""]))
        }
    }

    @Test("keys sort by path, so a collection's documents are contiguous")
    func order() throws {
        let keys = try ["users/a", "users/a/x/y", "users/a/x/z", "users/b", "users0/a", "userz/a"]
            .map { s throws(ModelError) in try DocumentKey(parsing: s) }
        #expect(keys.reversed().sorted() == keys)
    }

    @Test("keys hash and compare by UTF-8 bytes")
    func hashing() throws {
        let a = try DocumentKey(parsing: "c/é")
        let b = try DocumentKey(parsing: "c/e\u{301}")
        #expect(a != b && Set([a, b, a]).count == 2)
        #expect(try DocumentKey(parsing: "c/é") == a)
    }
}

/// Runs `body`, which must throw an `invalidArgument` ``ModelError`` whose message contains every phrase.
/// Shared by the path, field path and validation suites.
func expectInvalidArgument(
    _ phrases: String..., sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record(
            "expected invalidArgument containing \(phrases), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ModelError {
        #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(error.message.contains(phrase), "message: \(error.message)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("expected a ModelError, got \(error)", sourceLocation: sourceLocation)
    }
}
