import CairnCore
import CairnCoreTestSupport
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API aggregation queries")
struct APIAggregationTests {
    /// What kind of number `value` is by its type encoding: "integer" or "double" (Foundation on Linux may
    /// encode a small integer with a narrower integer type).
    private func encoding(_ value: Any?) -> String? {
        guard let number = value as? NSNumber else { return nil }
        return ["d", "f"].contains(String(cString: number.objCType)) ? "double" : "integer"
    }

    @Test("The query and the aggregations reach the server as requested, in order; count is aggregate([count()])")
    func requestReachesServer() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock { $0.aggregation = .success(["count": .integer(0)]) }
        let books = env.db.collection("books").whereField("year", isGreaterThan: 1960).limit(to: 7)
        _ = try await books.aggregate([
            Cairn.AggregateField.sum("pages"), Cairn.AggregateField.count(), Cairn.AggregateField.average(FieldPath(["a.b", "c"])),
            Cairn.AggregateField.sum("pages"),
        ]).getAggregation(source: .server)
        _ = try await books.count.getAggregation(source: .server)
        let received = env.server.aggregations
        try #require(received.count == 2)
        #expect(received[0].query == (try books.state.get()))
        #expect(received[0].aggregates == [
            .sum(FieldPath(segments: ["pages"])), .count, .average(FieldPath(segments: ["a.b", "c"])),
            .sum(FieldPath(segments: ["pages"])),
        ])
        #expect(received[1].aggregates == [.count])
        #expect(books.count == books.aggregate([Cairn.AggregateField.count()]))
    }

    @Test("Results read as Firebase's: integer and double NSNumbers, NSNull, nil for an unrequested aggregation")
    func resultValues() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock {
            $0.aggregation = .success([
                "count": .integer(3), "sum_pages": .integer(150), "sum_weight": .double(99.5),
                "avg_pages": .double(50), "avg_missing": .null,
            ])
        }
        let query = env.db.collection("books").aggregate([
            Cairn.AggregateField.count(), Cairn.AggregateField.sum("pages"), Cairn.AggregateField.sum("weight"),
            Cairn.AggregateField.average("pages"), Cairn.AggregateField.average("missing"),
        ])
        let snapshot = try await query.getAggregation(source: .server)
        #expect(snapshot.count == 3 && encoding(snapshot.count) == "integer")
        #expect(snapshot.get(Cairn.AggregateField.sum("pages")) as? Int64 == 150)
        #expect(encoding(snapshot.get(Cairn.AggregateField.sum("pages"))) == "integer", "a sum of integers is an integer")
        #expect(snapshot.get(Cairn.AggregateField.sum(FieldPath(["weight"]))) as? Double == 99.5)
        #expect(encoding(snapshot.get(Cairn.AggregateField.sum("weight"))) == "double")
        #expect(snapshot.get(Cairn.AggregateField.average("pages")) as? Double == 50)
        #expect(encoding(snapshot.get(Cairn.AggregateField.average("pages"))) == "double", "an average is a double")
        #expect(snapshot.get(Cairn.AggregateField.average("missing")) is NSNull)
        #expect(snapshot.get(Cairn.AggregateField.sum("missing")) == nil, "not requested")
        #expect(snapshot.get(Cairn.AggregateField.average("a..b")) == nil, "an invalid path was never requested")
        #expect(snapshot.query === query)
    }

    @Test("sum and average of an invalid field path fail with invalidArgument and Firebase's message; nothing is sent")
    func invalidFieldPaths() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock { $0.aggregation = .success(["count": .integer(0)]) }
        let books = env.db.collection("books")
        let cases: [(Cairn.AggregateField, String)] = [
            (Cairn.AggregateField.sum("a..b"), "Invalid field path (a..b)"),
            (Cairn.AggregateField.average(""), "Invalid field path ()"),
            (Cairn.AggregateField.sum(".a"), "Invalid field path (.a)"),
            (Cairn.AggregateField.average("a."), "Invalid field path (a.)"),
            (Cairn.AggregateField.sum("a/b"), "Paths must not contain '~', '*', '/', '[', or ']'"),
            (Cairn.AggregateField.sum(FieldPath([])), "Invalid field path. Provided names must not be empty"),
            (Cairn.AggregateField.average(FieldPath(["a", ""])), "Invalid field name at index 1"),
        ]
        for (field, message) in cases {
            do {
                _ = try await books.aggregate([Cairn.AggregateField.count(), field]).getAggregation(source: .server)
                Issue.record("\(field) was accepted")
            } catch let error as FirestoreErrorCode {
                #expect(error.code == .invalidArgument, "\(field)")
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
        await #expect(throws: FirestoreErrorCode.self) {
            _ = try await books.whereField("a", in: []).count.getAggregation(source: .server)
        }
        _ = try await books.count.getAggregation(source: .server)
        #expect(env.server.aggregations.count == 1, "only the valid aggregation reached the server")
    }

    @Test("With the network disabled an aggregation fails with unavailable at once, without a request")
    func offlineFails() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock { $0.aggregation = .success(["count": .integer(1)]) }
        try await env.db.disableNetwork()
        do {
            _ = try await env.db.collection("books").count.getAggregation(source: .server)
            Issue.record("the offline aggregation succeeded")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .unavailable)
            #expect(error.message.hasPrefix("Failed to get result from server."), "\(error.message)")
        }
        #expect(env.server.aggregations.isEmpty)
        try await env.db.enableNetwork()
        #expect(try await env.db.collection("books").count.getAggregation(source: .server).count == 1)
    }

    @Test("The server's error reaches the completion on the dispatch queue")
    func serverErrorOnCallbackQueue() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock {
            $0.aggregation = .failure(FirestoreErrorCode(.invalidArgument, "maximum number of aggregations"))
        }
        let outcome: (onQueue: Bool, error: FirestoreErrorCode?) = await withCheckedContinuation { continuation in
            env.db.collection("books").count.getAggregation(source: .server) { snapshot, error in
                continuation.resume(returning: (env.isOnCallbackQueue, error as? FirestoreErrorCode))
            }
        }
        #expect(outcome.onQueue)
        #expect(outcome.error == FirestoreErrorCode(.invalidArgument, "maximum number of aggregations"))
    }

    @Test("AggregateQuery and AggregateQuerySnapshot are equal by query and aggregations (in order) and by values")
    func equality() async throws {
        let env = APITestEnvironment()
        env.server.script.withLock { $0.aggregation = .success(["count": .integer(2), "sum_n": .integer(3)]) }
        let c = env.db.collection("c")
        let a = c.aggregate([Cairn.AggregateField.count(), Cairn.AggregateField.sum("n")])
        let b = c.aggregate([Cairn.AggregateField.count(), Cairn.AggregateField.sum(FieldPath(["n"]))])
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c.aggregate([Cairn.AggregateField.sum("n"), Cairn.AggregateField.count()]))
        #expect(a != c.limit(to: 1).aggregate([Cairn.AggregateField.count(), Cairn.AggregateField.sum("n")]))
        #expect(a.query == c)
        let first = try await a.getAggregation(source: .server)
        let second = try await b.getAggregation(source: .server)
        #expect(first == second && first.hashValue == second.hashValue)
        env.server.script.withLock { $0.aggregation = .success(["count": .integer(2), "sum_n": .integer(4)]) }
        #expect(try await a.getAggregation(source: .server) != first)
    }
}
