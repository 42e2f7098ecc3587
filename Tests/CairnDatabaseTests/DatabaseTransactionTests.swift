import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Database transactions, run locally")
struct DatabaseTransactionTests {
    /// Adds one to the number at the location, recording what the block read.
    private func increment(_ seen: Recorder) -> (MutableData) -> TransactionResult {
        { data in
            seen.add("read \(text(data.value))")
            data.value = (data.value as? Int ?? 0) + 1
            return .success(withValue: data)
        }
    }

    @Test("A transaction runs on the local value, is shown at once, is sent with the hash it read, and commits on ok")
    func commit() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "counter")
        ref.observe(.value) { seen.add("value \(text($0.value))") }
        try connection.push("counter", "5")
        database.waitForCallbacks()
        ref.runTransactionBlock(increment(seen)) { error, committed, snapshot in
            seen.add("done \(error == nil) \(committed) \(text(snapshot?.value))")
        }
        database.waitForCallbacks()
        #expect(seen.take() == ["value 5", "read 5", "value 6"])
        try #require(connection.writes.count == 1)
        let put = connection.writes[0]
        #expect(put.action == "p" && put.data == .int(6))
        #expect(put.hash != nil && put.hash != "")
        try connection.push("counter", "6")
        put.complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take() == ["done true true 6"])
    }

    @Test("On datastale the write is reverted and the block runs again on the newer server value")
    func retryOnStaleHash() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "counter")
        ref.runTransactionBlock(increment(seen)) { error, committed, snapshot in
            seen.add("done \(error == nil) \(committed) \(text(snapshot?.value))")
        }
        database.waitForCallbacks()
        #expect(seen.take() == ["read null"])
        #expect(connection.listens.map(\.query.path.description) == ["/counter"])
        try connection.push("counter", "10")
        connection.writes[0].complete(.failed(status: "datastale", reason: nil))
        database.waitForCallbacks()
        #expect(seen.take() == ["read 10"])
        try #require(connection.writes.count == 2)
        #expect(connection.writes[1].data == .int(11))
        try connection.push("counter", "11")
        connection.writes[1].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take() == ["done true true 11"])
    }

    @Test("After 25 retries on a stale hash the transaction fails with maxretry")
    func maxRetry() throws {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        database.reference(withPath: "busy").runTransactionBlock({ data in
            data.value = "mine"
            return .success(withValue: data)
        }, andCompletionBlock: { error, committed, _ in
            seen.add("done \((error as NSError?)?.localizedFailureReason ?? "ok") \(committed)")
        })
        for attempt in 0...25 {
            database.waitForCallbacks()
            try #require(connection.writes.count == attempt + 1)
            connection.writes[attempt].complete(.failed(status: "datastale", reason: nil))
        }
        database.waitForCallbacks()
        #expect(seen.entries == ["done maxretry false"])
        #expect(connection.writes.count == 26)
    }

    @Test("An aborted transaction writes nothing; an invalid value fails it with invalid_argument")
    func abortAndInvalid() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "x")
        ref.runTransactionBlock({ _ in .abort() }, andCompletionBlock: { error, committed, _ in
            seen.add("abort \(error == nil) \(committed)")
        })
        ref.runTransactionBlock({ data in
            data.value = Date()
            return .success(withValue: data)
        }, andCompletionBlock: { error, committed, _ in
            seen.add("invalid \((error as NSError?)?.localizedFailureReason ?? "ok") \(committed)")
        })
        database.waitForCallbacks()
        #expect(seen.entries == ["abort true false", "invalid invalid_argument false"])
        #expect(connection.writes.isEmpty)
    }

    @Test("A setValue or updateChildValues overlapping a sent transaction aborts it with set when its put comes back datastale; an ok still commits it")
    func overriddenBySet() throws {
        let (database, connection) = makeDatabase()
        // The blocks run on the repo's queue, the completions on the callback queue: each gets its own record.
        let reads = Recorder()
        let done = Recorder()
        let report: (String) -> (Error?, Bool, DataSnapshot?) -> Void = { name in
            { error, committed, _ in
                let error = error as NSError?
                done.add("\(name) \(error?.localizedFailureReason ?? "ok") \(error?.localizedDescription ?? "") \(committed)")
            }
        }
        let score = database.reference(withPath: "game/score")
        score.runTransactionBlock(increment(reads), andCompletionBlock: report("below"))
        database.reference(withPath: "game/other").runTransactionBlock(increment(reads), andCompletionBlock: report("beside"))
        database.reference(withPath: "game/lives").runTransactionBlock(increment(reads), andCompletionBlock: report("acked"))
        database.waitForCallbacks()
        #expect(reads.take() == ["read null", "read null", "read null"])
        database.reference(withPath: "game").updateChildValues(["score": 100, "lives": 3])
        database.waitForCallbacks()
        try #require(connection.writes.count == 4)

        connection.writes[0].complete(.failed(status: "datastale", reason: nil))
        connection.writes[1].complete(.failed(status: "datastale", reason: nil))
        connection.writes[2].complete(.ok)
        database.waitForCallbacks()
        #expect(done.take() == ["below set The transaction was overridden by a subsequent set false", "acked ok  true"])
        #expect(reads.take() == ["read null"], "only the transaction beside the update runs again")
        #expect(connection.writes.count == 5)

        score.runTransactionBlock(increment(reads), andCompletionBlock: report("above"))
        database.waitForCallbacks()
        database.reference(withPath: "game").setValue(["score": 1])
        database.waitForCallbacks()
        try #require(connection.writes.count == 7)
        connection.writes[5].complete(.failed(status: "datastale", reason: nil))
        database.waitForCallbacks()
        #expect(reads.take() == ["read 100"])
        #expect(done.take() == ["above set The transaction was overridden by a subsequent set false"])
    }
}
