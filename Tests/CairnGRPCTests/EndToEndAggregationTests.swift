import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Foundation
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// Count, sum and average through the public API, computed by the official emulator over RunAggregationQuery.
    @Suite("Aggregations over gRPC", .serialized)
    struct EndToEndAggregationTests {
        /// Five books: `pages` is missing in b4 and a string in b5, `rating` mixes integers and a double and is
        /// missing in b3 and b5.
        static let books: [(String, [String: CairnModel.Value])] = [
            ("b1", ["author": .string("A"), "year": .integer(1970), "pages": .integer(100), "rating": .integer(4)]),
            ("b2", ["author": .string("A"), "year": .integer(1980), "pages": .integer(50), "rating": .double(4.5)]),
            ("b3", ["author": .string("B"), "year": .integer(1990), "pages": .integer(30)]),
            ("b4", ["author": .string("B"), "year": .integer(2000), "rating": .integer(3)]),
            ("b5", ["author": .string("C"), "year": .integer(2010), "pages": .string("many")]),
        ]

        /// The aggregations `fields` of `query`, with a hang guard.
        private func aggregate(
            _ query: Cairn.Query, _ fields: [Cairn.AggregateField], _ what: String
        ) async throws -> AggregateQuerySnapshot {
            try await withHangGuard("aggregations \(what)") {
                try await query.aggregate(fields).getAggregation(source: .server)
            }
        }

        @Test("count, integer and mixed sums, averages, missing and non-numeric fields; a filter, limits, cursors")
        func aggregationsOnTheEmulator() async throws {
            let project = "cairn-e2e-aggregations"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            _ = try await rpc.commit(
                try Self.books.map { id, fields in .set(try DocumentKey(parsing: "books/\(id)"), value: ObjectValue(fields)) })
            let app = EmulatorApp(project: project, emulator: try await FirestoreEmulator.shared())
            let books = app.db.collection("books")

            // As Firebase documents for its standard edition, the server aggregates over the documents that match
            // the query and have every aggregated field: all five have `year`, b1 and b2 have `pages` and `rating`.
            let all = try await aggregate(books, [.count(), .sum("pages"), .sum("rating"), .average("pages"), .average("rating")], "over all books")
            #expect(all.count == 2 && encoding(all.count) == "integer")
            #expect(all.get(Cairn.AggregateField.sum("pages")) as? Int64 == 150)
            #expect(encoding(all.get(Cairn.AggregateField.sum("pages"))) == "integer", "a sum of integers is an integer")
            #expect(all.get(Cairn.AggregateField.sum("rating")) as? Double == 8.5)
            #expect(encoding(all.get(Cairn.AggregateField.sum("rating"))) == "double", "a sum with a double is a double")
            #expect(all.get(Cairn.AggregateField.average("pages")) as? Double == 75)
            #expect(encoding(all.get(Cairn.AggregateField.average("pages"))) == "double", "an average is a double")
            #expect(all.get(Cairn.AggregateField.average("rating")) as? Double == 4.25)

            let everyBook = try await aggregate(books, [.count(), .sum("year")], "count and sum of a field every book has")
            #expect(everyBook.count == 5 && everyBook.get(Cairn.AggregateField.sum("year")) as? Int64 == 9950)
            let pages = try await aggregate(books, [.sum("pages"), .average("pages")], "pages: missing in b4, a string in b5")
            #expect(pages.get(Cairn.AggregateField.sum("pages")) as? Int64 == 180)
            #expect(pages.get(Cairn.AggregateField.average("pages")) as? Double == 60)
            let ratings = try await aggregate(books, [.sum("rating"), .average("rating")], "ratings: integers and a double")
            #expect(ratings.get(Cairn.AggregateField.sum("rating")) as? Double == 11.5)
            let rating = try #require(ratings.get(Cairn.AggregateField.average("rating")) as? Double)
            #expect(abs(rating - 11.5 / 3) < 1e-12)

            let byB = try await aggregate(books.whereField("author", isEqualTo: "B"), [.count(), .sum("year")], "with a filter")
            #expect(byB.count == 2 && byB.get(Cairn.AggregateField.sum("year")) as? Int64 == 3990)

            let byYear = books.order(by: "year")
            let firstTwo = try await aggregate(byYear.limit(to: 2), [.count(), .sum("year")], "with a limit")
            #expect(firstTwo.count == 2 && firstTwo.get(Cairn.AggregateField.sum("year")) as? Int64 == 3950)
            // limit(toLast:) runs flipped: the last two by year are b4 and b5.
            let lastTwo = try await aggregate(byYear.limit(toLast: 2), [.count(), .sum("year")], "with limitToLast")
            #expect(lastTwo.count == 2 && lastTwo.get(Cairn.AggregateField.sum("year")) as? Int64 == 4010)

            let between = try await aggregate(
                byYear.start(at: [1980]).end(before: [2010]), [.count(), .sum("year")], "between cursors")
            #expect(between.count == 3 && between.get(Cairn.AggregateField.sum("year")) as? Int64 == 5970)

            // An inequality without an order by: the server orders implicitly; Cairn sends no order at all.
            let after1975 = try await withHangGuard("count with an inequality") {
                try await books.whereField("year", isGreaterThan: 1975).count.getAggregation(source: .server)
            }
            #expect(after1975.count == 4)
            await app.tearDown()
        }

        @Test("An empty result: count 0, sum 0 (an integer), average null")
        func emptyResult() async throws {
            let project = "cairn-e2e-aggregations-empty"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            _ = try await rpc.commit(
                try Self.books.map { id, fields in .set(try DocumentKey(parsing: "books/\(id)"), value: ObjectValue(fields)) })
            let app = EmulatorApp(project: project, emulator: try await FirestoreEmulator.shared())
            let cases: [(Cairn.Query, String)] = [
                (app.db.collection("books").whereField("author", isEqualTo: "nobody"), "a filter that matches nothing"),
                (app.db.collection("empty"), "a collection with no documents"),
            ]
            for (query, what) in cases {
                let snapshot = try await aggregate(
                    query, [.count(), .sum("pages"), .average("rating")], what)
                #expect(snapshot.count == 0, "\(what)")
                #expect(snapshot.get(Cairn.AggregateField.sum("pages")) as? Int64 == 0, "\(what)")
                #expect(encoding(snapshot.get(Cairn.AggregateField.sum("pages"))) == "integer", "\(what)")
                #expect(snapshot.get(Cairn.AggregateField.average("rating")) is NSNull, "\(what)")
            }
            await app.tearDown()
        }

        @Test("Documents the official Python client writes are aggregated with Firebase's types",
              .enabled(if: InteropPeer.shouldRun, InteropPeer.skipReason))
        func pythonWrittenDocuments() async throws {
            let project = "cairn-e2e-aggregations-python"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let scores: [(String, [String: PeerValue])] = [
                ("s1", ["team": .string("red"), "points": .integer(7), "time": .double(1.25)]),
                ("s2", ["team": .string("red"), "points": .integer(9_007_199_254_740_993), "time": .integer(2)]),
                ("s3", ["team": .string("blue"), "points": .integer(-3)]),
            ]
            for (id, fields) in scores {
                try await InteropPeer.write(fields, to: "scores/\(id)", project: project, emulator: emulator)
            }
            let app = EmulatorApp(project: project, emulator: emulator)
            let red = try await withHangGuard("aggregations of the Python client's documents") {
                try await app.db.collection("scores").whereField("team", isEqualTo: "red").aggregate([
                    Cairn.AggregateField.count(), Cairn.AggregateField.sum("points"), Cairn.AggregateField.sum("time"),
                    Cairn.AggregateField.average("time"),
                ]).getAggregation(source: .server)
            }
            #expect(red.count == 2)
            #expect(red.get(Cairn.AggregateField.sum("points")) as? Int64 == 9_007_199_254_741_000, "exact: no double holds it")
            #expect(encoding(red.get(Cairn.AggregateField.sum("points"))) == "integer")
            #expect(red.get(Cairn.AggregateField.sum("time")) as? Double == 3.25)
            #expect(encoding(red.get(Cairn.AggregateField.sum("time"))) == "double")
            #expect(red.get(Cairn.AggregateField.average("time")) as? Double == 1.625)
            await app.tearDown()
        }

        @Test("Offline an aggregation fails with unavailable: network disabled, or no server at the host")
        func offline() async throws {
            let project = "cairn-e2e-aggregations-offline"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            _ = try await rpc.commit([.set(try DocumentKey(parsing: "books/b1"), value: ObjectValue(["pages": .integer(1)]))])
            let emulator = try await FirestoreEmulator.shared()
            let app = EmulatorApp(project: project, emulator: emulator)
            let books = app.db.collection("books")
            #expect(try await withHangGuard("online count") { try await books.count.getAggregation(source: .server) }.count == 1)
            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            await expectFirestoreError(.unavailable, containing: "Failed to get result from server.") {
                try await withHangGuard("count with the network disabled") {
                    try await books.count.getAggregation(source: .server)
                }
            }
            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            #expect(try await withHangGuard("count again online") { try await books.count.getAggregation(source: .server) }.count == 1)
            await app.tearDown()

            let unreachable = EmulatorApp(project: project, emulator: emulator, port: 1)
            await expectFirestoreError(.unavailable) {
                try await withHangGuard("count with no server at the host") {
                    try await unreachable.db.collection("books").count.getAggregation(source: .server)
                }
            }
            await unreachable.tearDown()
        }
    }
}

/// What kind of number `value` is by its type encoding: "integer" or "double" (nil for anything else; Foundation
/// on Linux may encode a small integer with a narrower integer type).
private func encoding(_ value: Any?) -> String? {
    guard let number = value as? NSNumber else { return nil }
    return ["d", "f"].contains(String(cString: number.objCType)) ? "double" : "integer"
}
