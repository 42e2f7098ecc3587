import Testing
@testable import CairnModel

@Suite("Model skeleton")
struct ModelSkeletonTests {
    @Test("a document key splits into collection and id")
    func documentKey() {
        let key = DocumentKey(path: ResourcePath(segments: ["users", "ada", "posts", "p1"]))
        #expect(key.collectionGroup == "posts")
        #expect(key.documentID == "p1")
        #expect(key.collectionPath.canonicalString == "users/ada/posts")
    }
}
