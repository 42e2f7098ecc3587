import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API references and queries")
struct APIQueryTests {
    private func model(_ query: Cairn.Query) throws -> CairnModel.Query { try query.state.get() }

    private func error(_ query: Cairn.Query) -> FirestoreErrorCode? { query.state.failure }

    @Test("References: paths, IDs, parents and auto IDs")
    func references() {
        let env = APITestEnvironment()
        let posts = env.db.collection("users/ada/posts")
        #expect(posts.collectionID == "posts" && posts.path == "users/ada/posts")
        #expect(posts.parent?.path == "users/ada")
        #expect(env.db.collection("users").parent == nil)
        let post = posts.document("p1")
        #expect(post.documentID == "p1" && post.parent.path == "users/ada/posts")
        #expect(post.collection("likes").path == "users/ada/posts/p1/likes")
        let generated = posts.document()
        #expect(generated.documentID.count == 20)
        #expect(generated.documentID.allSatisfy { $0.isLetter || $0.isNumber })
        #expect(posts.document() != generated)
        #expect(env.db.document("users/ada") == env.db.collection("users").document("ada"))
    }

    @Test("Invalid paths report invalidArgument with Firebase's wording on use")
    func invalidPaths() async throws {
        let env = APITestEnvironment()
        let cases: [(String, () async throws -> Void)] = [
            ("Document references must have an even number of segments, but users has 1",
             { try await env.db.document("users").delete() }),
            ("Collection references must have an odd number of segments, but users/ada has 2",
             { _ = try await env.db.collection("users/ada").getDocuments() }),
            ("Document path cannot be empty.", { try await env.db.collection("c").document("").delete() }),
            ("Collection path cannot be empty.", { _ = try await env.db.collection("").getDocuments() }),
            ("Paths must not contain //", { try await env.db.document("a//b").delete() }),
            ("must not contain '/'", { _ = try await env.db.collectionGroup("a/b").getDocuments() }),
            ("Document references must have an even number of segments",
             { try await env.db.document("bad").collection("c").document("d").delete() }),
        ]
        for (message, call) in cases {
            do {
                try await call()
                Issue.record("accepted an invalid path (\(message))")
            } catch let error as FirestoreErrorCode {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
        #expect(try await env.writes().isEmpty && env.server.watches == 0)
    }

    @Test("Every whereField form, String and FieldPath, builds the matching filter")
    func whereFieldForms() throws {
        let env = APITestEnvironment()
        let c = env.db.collection("c")
        let p = Cairn.FieldPath(["f"])
        let forms: [(Cairn.Query, FilterOperator)] = [
            (c.whereField("f", isEqualTo: 1), .equal), (c.whereField(p, isEqualTo: 1), .equal),
            (c.whereField("f", isNotEqualTo: 1), .notEqual), (c.whereField(p, isNotEqualTo: 1), .notEqual),
            (c.whereField("f", isLessThan: 1), .lessThan), (c.whereField(p, isLessThan: 1), .lessThan),
            (c.whereField("f", isLessThanOrEqualTo: 1), .lessThanOrEqual),
            (c.whereField(p, isLessThanOrEqualTo: 1), .lessThanOrEqual),
            (c.whereField("f", isGreaterThan: 1), .greaterThan), (c.whereField(p, isGreaterThan: 1), .greaterThan),
            (c.whereField("f", isGreaterThanOrEqualTo: 1), .greaterThanOrEqual),
            (c.whereField(p, isGreaterThanOrEqualTo: 1), .greaterThanOrEqual),
            (c.whereField("f", arrayContains: 1), .arrayContains), (c.whereField(p, arrayContains: 1), .arrayContains),
            (c.whereField("f", arrayContainsAny: [1]), .arrayContainsAny),
            (c.whereField(p, arrayContainsAny: [1]), .arrayContainsAny),
            (c.whereField("f", in: [1]), .in), (c.whereField(p, in: [1]), .in),
            (c.whereField("f", notIn: [1]), .notIn), (c.whereField(p, notIn: [1]), .notIn),
        ]
        for (query, op) in forms {
            let filters = try model(query).filters
            #expect(filters.count == 1)
            guard case .field(let filter) = filters.first else {
                Issue.record("not a field filter for \(op)")
                continue
            }
            #expect(filter.op == op)
            #expect(filter.field == CairnModel.FieldPath(segments: ["f"]))
            #expect(filter.value == (op.takesArrayOfValues ? .array([.integer(1)]) : .integer(1)))
        }
    }

    @Test("Invalid filters record Firebase's error, later builders keep it, and every use reports it")
    func recordedErrors() async throws {
        let env = APITestEnvironment()
        let bad = env.db.collection("c").whereField("tags", in: []).order(by: "x").limit(to: 3)
        #expect(error(bad)?.message == "Invalid Query. A non-empty array is required for 'in' filters.")
        await #expect(throws: FirestoreErrorCode.self) { _ = try await bad.getDocuments(source: .cache) }
        let seen = Recorder<Error?>()
        bad.addSnapshotListener { snapshot, error in seen.append(error) }
        env.flush()
        #expect(seen.values.count == 1)
        #expect((seen.values.first as? FirestoreErrorCode)?.code == .invalidArgument)
        try await env.db.waitForPendingWrites()
        #expect(env.server.watches == 0)

        let c = env.db.collection("c")
        #expect(error(c.whereField("a..b", isEqualTo: 1))?.message.contains("contain '..'") == true)
        #expect(error(c.whereField("a", notIn: [1]).whereField("b", notIn: [2]))?.message
            == "Invalid Query. You cannot use more than one 'notIn' filter.")
        #expect(error(c.whereField("a", isLessThan: NSNull())) != nil)
        #expect(error(c.whereField("a", isEqualTo: FieldValue.serverTimestamp()))?.message.contains(
            "can only be used with updateData() and setData()") == true)
        #expect(error(c.limit(to: 0))?.message == "Invalid Query. Query limit (0) is invalid. Limit must be positive.")
        #expect(error(c.start(at: [1]).order(by: "a")) != nil)
    }

    @Test("Document IDs in filters and cursors resolve to references under the queried path")
    func documentIDs() throws {
        let env = APITestEnvironment()
        let query = env.db.collection("users").whereField(Cairn.FieldPath.documentID(), in: ["ada", env.db.document("users/bob")])
        guard case .field(let filter) = try model(query).filters.first else {
            Issue.record("no filter")
            return
        }
        let database = env.db.databaseID
        #expect(filter.value == .array([
            .reference(database, try DocumentKey(parsing: "users/ada")),
            .reference(database, try DocumentKey(parsing: "users/bob")),
        ]))
        #expect(error(env.db.collection("users").whereField(Cairn.FieldPath.documentID(), isEqualTo: "a/b")) != nil)
        let group = env.db.collectionGroup("posts").whereField(Cairn.FieldPath.documentID(), isEqualTo: "users/ada/posts/p")
        #expect(error(group) == nil)
        let cursor = try model(env.db.collection("users").order(by: Cairn.FieldPath.documentID()).start(after: ["ada"]))
        #expect(cursor.startAt == Bound(position: [.reference(database, try DocumentKey(parsing: "users/ada"))], inclusive: false))
    }

    @Test("Filter.andFilter / orFilter compose, order, limits and cursors build the model query")
    func composition() throws {
        let env = APITestEnvironment()
        let query = env.db.collection("cities").whereFilter(Cairn.Filter.orFilter([
            Cairn.Filter.whereField("capital", isEqualTo: true),
            Cairn.Filter.andFilter([Cairn.Filter.whereField("pop", isGreaterThan: 10), Cairn.Filter.whereField(Cairn.FieldPath(["c"]), in: ["JP"])]),
        ])).order(by: "pop", descending: true).start(at: [100]).end(before: [5]).limit(toLast: 2)
        let built = try model(query)
        guard case .composite(let composite) = built.filters.first else {
            Issue.record("no composite filter")
            return
        }
        #expect(composite.op == .or && composite.filters.count == 2)
        #expect(built.explicitOrderBy == [OrderBy(CairnModel.FieldPath(segments: ["pop"]), descending: true)])
        #expect(built.startAt == Bound(position: [.integer(100)], inclusive: true))
        #expect(built.endAt == Bound(position: [.integer(5)], inclusive: false))
        #expect(built.limit == 2 && built.limitType == .last)
        #expect(try model(env.db.collectionGroup("landmarks")).collectionGroup == "landmarks")
    }

    @Test("Cursors from snapshots use every order-by field, then the document; a missing document is an error")
    func snapshotCursors() throws {
        let env = APITestEnvironment()
        let ref = env.db.document("cities/sf")
        let found = DocumentSnapshot(
            reference: ref, document: fakeDocument("cities/sf", ["pop": .integer(7)]),
            metadata: SnapshotMetadata(hasPendingWrites: false, isFromCache: false))
        let query = try model(env.db.collection("cities").order(by: "pop").start(afterDocument: found))
        #expect(query.startAt == Bound(
            position: [.integer(7), .reference(env.db.databaseID, try DocumentKey(parsing: "cities/sf"))], inclusive: false))
        let missing = DocumentSnapshot(reference: ref, document: nil, metadata: SnapshotMetadata(hasPendingWrites: false, isFromCache: true))
        #expect(error(env.db.collection("cities").order(by: "pop").end(atDocument: missing))?.message.contains("doesn't exist") == true)
    }

    @Test("limit(toLast:) without order(by:) is reported when the query runs")
    func limitToLastNeedsOrder() async throws {
        let env = APITestEnvironment()
        let query = env.db.collection("c").limit(toLast: 3)
        #expect(error(query) == nil)
        do {
            _ = try await query.getDocuments()
            Issue.record("ran limit(toLast:) without an order")
        } catch let error as FirestoreErrorCode {
            #expect(error.message.hasPrefix("limit(toLast:) queries require specifying at least one order(by:) clause"))
        }
    }
}
