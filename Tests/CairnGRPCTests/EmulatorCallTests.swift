import CairnCore
import Cairn
import CairnModel
import Testing

@testable import CairnGRPC

/// Commit, BatchGetDocuments, RunQuery, transactions and error codes against the official Firestore emulator.
extension EmulatorTests {
    @Suite("unary and server-streaming calls", .serialized)
    struct Calls {
        let rooms = ResourcePath(segments: ["rooms"])

        func key(_ path: String) throws -> DocumentKey { try DocumentKey(parsing: path) }

        static func truncatedToMicroseconds(_ object: ObjectValue) -> ObjectValue {
            ObjectValue(object.fields.mapValues(truncatedToMicroseconds))
        }

        static func truncatedToMicroseconds(_ value: Value) -> Value {
            switch value {
            case .timestamp(let time):
                return .timestamp(Timestamp(seconds: time.seconds, nanoseconds: time.nanoseconds / 1000 * 1000))
            case .array(let elements): return .array(elements.map(truncatedToMicroseconds))
            case .map(let object): return .map(truncatedToMicroseconds(object))
            default: return value
            }
        }

        @Test(
            "a committed document reads back through BatchGet (timestamps in microseconds); a missing one is noDocument"
        )
        func commitThenBatchGet() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-batch-get")
            defer { rpc.shutdown() }
            var model = RandomModel(seed: 0x5EED_0101)
            var data = model.object()
            data.fields["nested"] = .map(
                ObjectValue(["n": .integer(.max), "t": .timestamp(Timestamp(seconds: 1, nanoseconds: 123_456_000))]))
            data.fields["ref"] = .reference(rpc.serializer.databaseID, try key("rooms/b"))
            let written = try key("rooms/a")
            let ack = try await rpc.commit([.set(written, value: data)])
            #expect(ack.results.count == 1)

            let documents = try await rpc.lookup([written, try key("rooms/missing")])
            #expect(documents.map(\.key) == [written, try key("rooms/missing")])
            #expect(documents[0].state == .found)
            // Firestore stores timestamps with microsecond precision.
            #expect(documents[0].data == Self.truncatedToMicroseconds(data))
            #expect(documents[0].version == ack.results[0].version)
            #expect(documents[1].state == .noDocument)
        }

        @Test("RunQuery applies the filter, order and limit; limitToLast comes back in query order")
        func runQuery() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-run-query")
            defer { rpc.shutdown() }
            let mutations = try (1...6).map { n in
                Mutation.set(
                    try key("rooms/r\(n)"), value: ObjectValue(["n": .integer(Int64(n)), "even": .boolean(n % 2 == 0)]))
            }
            _ = try await rpc.commit(mutations)
            let even = try Query(path: rooms).filtered(
                by: .field(FieldFilter(try FieldPath(["even"]), .equal, .boolean(true))))
            let descending = try even.ordered(by: OrderBy(try FieldPath(["n"]), descending: true)).limited(to: 2)
            let top = try await rpc.runQuery(descending)
            #expect(top.map { $0.data.fields["n"] } == [.integer(6), .integer(4)])

            let lastTwo = try Query(path: rooms).ordered(by: OrderBy(try FieldPath(["n"]))).limitedToLast(2)
            #expect(try await rpc.runQuery(lastTwo).map { $0.data.fields["n"] } == [.integer(5), .integer(6)])

            let nullQuery = try Query(path: rooms).filtered(
                by: .field(FieldFilter(try FieldPath(["n"]), .equal, .null)))
            #expect(try await rpc.runQuery(nullQuery).isEmpty)
        }

        @Test("precondition failures map to alreadyExists, notFound and failedPrecondition")
        func errorCodes() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-errors")
            defer { rpc.shutdown() }
            let document = try key("rooms/a")
            let ack = try await rpc.commit([.set(document, value: ObjectValue(["n": .integer(1)]))])
            let cases: [(Mutation, FirestoreErrorCode.Code)] = [
                (.set(document, value: ObjectValue(), precondition: .exists(false)), .alreadyExists),
                (
                    .patch(
                        try key("rooms/none"), value: ObjectValue(["n": .integer(2)]),
                        mask: FieldMask([try FieldPath(["n"])])), .notFound
                ),
                (
                    .delete(document, precondition: .updateTime(Timestamp(seconds: 1, nanoseconds: 0))),
                    .failedPrecondition
                ),
            ]
            for (mutation, code) in cases {
                await expectFirestoreError(code, "\(mutation)") { try await rpc.commit([mutation]) }
            }
            // The stored document is untouched by the rejected writes.
            #expect(try await rpc.lookup([document])[0].version == ack.results[0].version)
        }

        @Test(
            "transactions: reads and a commit with the id; verify holds for the read version and fails for a stale one")
        func transactions() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-transactions")
            defer { rpc.shutdown() }
            let document = try key("rooms/a")
            let absent = try key("rooms/absent")
            let first = try await rpc.commit([.set(document, value: ObjectValue(["n": .integer(1)]))])
            let version = first.results[0].version

            let transaction = try await rpc.beginTransaction()
            #expect(!transaction.isEmpty)
            let read = try await rpc.lookup([document, absent], transactionID: transaction)
            #expect(read.map(\.state) == [.found, .noDocument])
            let committed = try await rpc.commit(
                [
                    .verify(absent, precondition: .exists(false)),
                    .verify(document, precondition: .updateTime(read[0].version)),
                    .set(try key("rooms/b"), value: ObjectValue(["from": .string("tx")])),
                ], transactionID: transaction)
            // The verify of an unchanged document leaves its version alone.
            #expect(committed.results[1].version == version)
            #expect(try await rpc.lookup([document])[0].version == version)
            #expect(try await rpc.lookup([absent])[0].state == .noDocument)

            _ = try await rpc.commit([.set(document, value: ObjectValue(["n": .integer(2)]))])
            await expectFirestoreError(.failedPrecondition) {
                try await rpc.commit([.verify(document, precondition: .updateTime(version))])
            }
            await expectFirestoreError(.alreadyExists) {
                try await rpc.commit([.verify(document, precondition: .exists(false))])
            }

            let abandoned = try await rpc.beginTransaction()
            _ = try await rpc.lookup([document], transactionID: abandoned)
            try await rpc.rollback(abandoned)
            await #expect(throws: FirestoreErrorCode.self) { try await rpc.commit([], transactionID: abandoned) }
        }

        @Test("an empty transaction commits though the emulator answers without commit_time; a verify-only one commits")
        func transactionsThatWriteNothing() async throws {
            let rpc = try await EmulatorGate.client(project: "cairn-empty-transactions")
            defer { rpc.shutdown() }
            let empty = try await rpc.beginTransaction()
            let nothing = try await rpc.commit([], transactionID: empty)
            #expect(nothing.results.isEmpty)
            #expect(nothing.commitVersion == FirestoreSerializer.noCommitVersion, "the emulator sent no commit_time")

            let document = try key("rooms/a")
            let version = try await rpc.commit([.set(document, value: ObjectValue(["n": .integer(1)]))]).results[0].version
            let readOnly = try await rpc.beginTransaction()
            let read = try await rpc.lookup([document], transactionID: readOnly)
            let verified = try await rpc.commit([.verify(document, precondition: .updateTime(read[0].version))], transactionID: readOnly)
            #expect(verified.results.count == 1)
            #expect(try await rpc.lookup([document])[0].version == version)
        }
    }
}
