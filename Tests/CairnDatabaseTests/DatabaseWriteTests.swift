import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Database writes: optimistic, acknowledged, rejected")
struct DatabaseWriteTests {
    @Test("A rejected write raises its events, then reverting events, then the error in the completion")
    func rejectionReverts() throws {
        let (database, connection, seen, list) = try observedList()
        #expect(seen.take() == ["added a", #"value {"a":1}"#])

        list.child("b").setValue(2) { error, ref in
            let nsError = error as NSError?
            seen.add("completion \(nsError?.domain ?? "-") \(nsError?.code ?? 0) \(nsError?.localizedDescription ?? "-") \(ref.key ?? "")")
        }
        database.waitForCallbacks()
        #expect(seen.take() == ["added b", #"value {"a":1,"b":2}"#])
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["p /list/b"])

        connection.writes[0].complete(.failed(status: "permission_denied", reason: nil))
        database.waitForCallbacks()
        #expect(seen.take() == ["removed b", #"value {"a":1}"#, "completion com.firebase.core 1 Permission Denied b"])
    }

    @Test("A rejected write is reverted even where no server data arrived yet")
    func rejectionRevertsWithoutServerData() throws {
        let (database, connection, seen, list) = scriptedDatabase(at: "empty")
        list.observe(.childAdded) { seen.add("added \($0.key)") }
        list.observe(.childRemoved) { seen.add("removed \($0.key)") }
        list.child("b").setValue(["x": 1]) { error, _ in seen.add("completion \((error as NSError?)?.code ?? 0)") }
        database.waitForCallbacks()
        #expect(seen.take() == ["added b"])
        connection.writes[0].complete(.failed(status: "permission_denied", reason: "no"))
        database.waitForCallbacks()
        #expect(seen.take() == ["removed b", "completion 1"])
    }

    @Test("An acknowledged write completes without error and no longer shadows server data")
    func ackClearsPending() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "x")
        ref.observe(.value) { seen.add("value \(text($0.value))") }
        ref.setValue("local") { error, _ in seen.add("completion \(error == nil ? "ok" : "error")") }
        database.waitForCallbacks()
        #expect(seen.take() == [#"value "local""#])

        try connection.push("x", #""other""#)
        database.waitForCallbacks()
        #expect(seen.take().isEmpty)

        connection.writes[0].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take() == [#"value "other""#, "completion ok"])
        try connection.push("x", #""server""#)
        database.waitForCallbacks()
        #expect(seen.take() == [#"value "server""#])
    }

    @Test("updateChildValues writes several paths as one merge; overlapping paths are rejected")
    func multiPathUpdate() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "doc")
        ref.observe(.value) { seen.add(text($0.value)) }
        try connection.push("doc", #"{"c": 1, "d": 2}"#)
        database.waitForCallbacks()
        #expect(seen.take() == [#"{"c":1,"d":2}"#])
        ref.updateChildValues(["a/b": 1, "c": "two"])
        database.waitForCallbacks()
        #expect(seen.take() == [#"{"a":{"b":1},"c":"two","d":2}"#])
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["m /doc"])

        ref.updateChildValues(["a": 1, "a/b": 2]) { error, _ in seen.add("error \((error as NSError?)?.localizedFailureReason ?? "none")") }
        database.waitForCallbacks()
        #expect(seen.take() == ["error invalid_argument"])
        #expect(connection.writes.count == 1)
    }

    @Test("ServerValue.timestamp() resolves locally with the server time offset and is sent unresolved")
    func serverTimestamp() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "at", clock: { Date(timeIntervalSince1970: 1_000) })
        ref.observe(.value) { seen.add(text($0.value)) }
        connection.connect(serverTimeOffset: 5_000)
        ref.setValue(ServerValue.timestamp())
        database.waitForCallbacks()
        #expect(seen.take() == ["1005000"])
        #expect(connection.writes.first?.data == .object([".sv": .string("timestamp")]))

        ref.setValue(ServerValue.increment(7))
        database.waitForCallbacks()
        #expect(seen.take() == ["1005007"])
    }

    @Test("Invalid data never reaches the tree: the completion gets invalid_argument naming the path")
    func invalidData() throws {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        database.reference(withPath: "a").setValue(["bad.key": 1]) { error, _ in
            seen.add((error as NSError?)?.localizedFailureReason ?? "none")
        }
        database.waitForCallbacks()
        #expect(seen.entries == ["invalid_argument"])
        #expect(connection.writes.isEmpty)
    }
}
