import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Database purgeOutstandingWrites: revert, then write_canceled")
struct DatabasePurgeTests {
    static func outcome(_ name: String, _ seen: Recorder) -> (Error?, DatabaseReference) -> Void {
        { error, _ in
            let nsError = error as NSError?
            seen.add("\(name) \(nsError.map { "\($0.code) \($0.localizedFailureReason ?? "-")" } ?? "ok")")
        }
    }

    @Test("Queued writes are reverted with events, then each completion gets write_canceled (code 3) in order")
    func purgeRevertsAndCancels() throws {
        let (database, connection, seen, list) = try observedList()
        connection.listens[0].complete(.ok)
        database.waitForCallbacks()
        list.child("b").setValue(2, withCompletionBlock: Self.outcome("set b", seen))
        list.updateChildValues(["c": 3], withCompletionBlock: Self.outcome("update c", seen))
        database.waitForCallbacks()
        #expect(seen.take() == ["added a", #"value {"a":1}"#, "added b", #"value {"a":1,"b":2}"#, "added c", #"value {"a":1,"b":2,"c":3}"#])

        database.purgeOutstandingWrites()
        database.waitForCallbacks()
        #expect(seen.take() == ["removed b", "removed c", #"value {"a":1}"#, "set b 3 write_canceled", "update c 3 write_canceled"])
        #expect(connection.purges == 1)

        connection.writes[0].complete(.ok)
        connection.writes[1].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take().isEmpty)
    }

    @Test("Writes after a purge are sent and acknowledged as usual")
    func writesAfterPurge() {
        let (database, connection, seen, ref) = scriptedDatabase(at: "x")
        ref.setValue(1, withCompletionBlock: Self.outcome("first", seen))
        database.purgeOutstandingWrites()
        ref.setValue(2, withCompletionBlock: Self.outcome("second", seen))
        ref.observe(.value) { seen.add("value \(text($0.value))") }
        database.waitForCallbacks()
        #expect(seen.take() == ["first 3 write_canceled", "value 2"])
        #expect(connection.writes.map(\.data) == [.int(1), .int(2)])
        connection.writes[1].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take().contains("second ok"))
    }

    @Test("A pending transaction is aborted with write_canceled and not committed; its local value is reverted")
    func purgeAbortsTransactions() throws {
        let (database, connection, seen, counter) = scriptedDatabase(at: "counter")
        counter.observe(.value) { seen.add("value \(text($0.value))") }
        database.waitForCallbacks()
        try connection.push("counter", "5")
        connection.listens[0].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take() == ["value 5"])
        counter.runTransactionBlock({ data in
            data.value = ((data.value as? Int) ?? 0) + 1
            return TransactionResult.success(withValue: data)
        }, andCompletionBlock: { error, committed, _ in
            seen.add("transaction \((error as NSError?)?.code ?? 0) \((error as NSError?)?.localizedFailureReason ?? "-") \(committed)")
        })
        database.waitForCallbacks()
        #expect(seen.take() == ["value 6"])
        #expect(connection.writes.map(\.action) == ["p"])

        database.purgeOutstandingWrites()
        database.waitForCallbacks()
        #expect(seen.take() == ["value 5", "transaction 3 write_canceled false"])
        connection.writes[0].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take().isEmpty)
    }

    @Test("Unanswered onDisconnect requests complete with write_canceled and are not remembered")
    func purgeCancelsOnDisconnect() throws {
        let (database, connection, seen, presence) = scriptedDatabase(at: "presence/me")
        presence.observe(.value) { seen.add("value \(text($0.value))") }
        presence.onDisconnectSetValue("gone", withCompletionBlock: Self.outcome("onDisconnect", seen))
        database.waitForCallbacks()
        database.purgeOutstandingWrites()
        database.waitForCallbacks()
        connection.writes[0].complete(.ok)
        connection.connect()
        connection.disconnect()
        database.waitForCallbacks()
        #expect(seen.entries == ["onDisconnect 3 write_canceled"])
    }
}
