import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Database getData: local when complete, else the server, else Firebase's offline error")
struct DatabaseGetDataTests {
    /// Runs `getData` and returns `value <json>` or `error <domain> <code> <reason>`, after the callbacks ran.
    static func get(_ query: DatabaseQuery, _ database: Database, answer: (() -> Void)? = nil) -> String {
        let seen = Recorder()
        let done = DispatchSemaphore(value: 0)
        query.getData { error, snapshot in
            if let error = error as NSError? {
                seen.add("error \(error.domain) \(error.code) \(error.localizedFailureReason ?? "-")")
            } else {
                seen.add("value \(text(snapshot?.value))")
            }
            done.signal()
        }
        database.waitForCallbacks()
        answer?()
        _ = done.wait(timeout: .now() + 10)
        return seen.entries.joined(separator: "; ")
    }

    @Test("Connected without complete local data: a get goes to the server and its answer is returned")
    func connectedAsksServer() throws {
        let (database, connection) = makeDatabase()
        database.waitForCallbacks()
        connection.connect()
        let ref = database.reference(withPath: "config")
        let result = Self.get(ref, database) {
            #expect(connection.gets.map(\.query.path.description) == ["/config"])
            connection.gets[0].complete(.data(.object(["mode": .string("dark")])))
        }
        #expect(result == #"value {"mode":"dark"}"#)
    }

    @Test("The server's answer is applied as server data: observers of the location see it")
    func answerAppliedAsServerData() throws {
        let (database, connection) = makeDatabase()
        database.waitForCallbacks()
        connection.connect()
        let seen = Recorder()
        database.reference(withPath: "room").observe(.childAdded) { seen.add("added \($0.key)") }
        database.waitForCallbacks()
        let result = Self.get(database.reference(withPath: "room"), database) {
            connection.gets[0].complete(.data(.object(["a": .int(1)])))
        }
        #expect(result == #"value {"a":1}"#)
        database.waitForCallbacks()
        #expect(seen.entries == ["added a"])
    }

    @Test("Complete local data answers at once, without a get: listened data, a filtered window, a pending overwrite")
    func completeLocalDataAnswers() throws {
        let (database, connection) = makeDatabase()
        let scores = database.reference(withPath: "scores")
        scores.observe(.value) { _ in }
        database.waitForCallbacks()
        try connection.push("scores", #"{"a": 1, "b": 2, "c": 3}"#)
        connection.listens[0].complete(.ok)
        database.waitForCallbacks()
        #expect(Self.get(scores, database) == #"value {"a":1,"b":2,"c":3}"#)
        #expect(Self.get(scores.queryOrderedByKey().queryLimited(toLast: 2), database) == #"value {"b":2,"c":3}"#)

        let draft = database.reference(withPath: "drafts/d1")
        draft.setValue(["title": "local"])
        #expect(Self.get(draft, database) == #"value {"title":"local"}"#)
        #expect(connection.gets.isEmpty)
    }

    @Test("Offline without complete data: after the wait, Firebase's error (com.firebase.core, 1, Client is offline.)")
    func offlineFails() throws {
        let (database, connection) = makeDatabase(getDataWait: 0.05)
        let scores = database.reference(withPath: "scores")
        scores.observe(.childAdded) { _ in }
        database.waitForCallbacks()
        try connection.push("scores/a", "1")
        database.waitForCallbacks()
        var message = ""
        let done = DispatchSemaphore(value: 0)
        scores.getData { error, snapshot in
            message = "\((error as NSError?)?.localizedDescription ?? "none") \(snapshot == nil)"
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(message.hasPrefix("Unable to get latest value for query /scores"))
        #expect(message.hasSuffix("client offline with no active listeners and no matching disk cache entries true"))
        #expect(Self.get(database.reference(withPath: "other"), database) == "error com.firebase.core 1 Client is offline.")
        #expect(connection.gets.isEmpty)
    }

    @Test("A get made before the handshake waits for it and is sent once connected")
    func waitsForConnection() {
        let (database, connection) = makeDatabase(getDataWait: 30)
        let result = Self.get(database.reference(withPath: "late"), database) {
            #expect(connection.gets.isEmpty)
            connection.connect()
            database.waitForCallbacks()
            #expect(connection.gets.count == 1)
            connection.gets.first?.complete(.data(.int(7)))
        }
        #expect(result == "value 7")
    }

    @Test("A refused get falls back to local data complete by then, else fails with the server's status")
    func refusalFallsBack() {
        let (database, connection) = makeDatabase()
        database.waitForCallbacks()
        connection.connect()
        let secret = database.reference(withPath: "secret")
        #expect(Self.get(secret, database) {
            connection.gets[0].complete(.failed(status: "permission_denied", reason: nil))
        } == "error com.firebase.core 1 permission_denied")

        let note = database.reference(withPath: "note")
        #expect(Self.get(note, database) {
            note.setValue("mine")
            database.waitForCallbacks()
            connection.gets[1].complete(.failed(status: "permission_denied", reason: nil))
        } == #"value "mine""#)
    }

    @Test(".info answers locally; an invalid reference fails with invalid_argument; the async form throws")
    func infoInvalidAndAsync() async throws {
        let (database, connection) = makeDatabase(getDataWait: 0.05)
        #expect(Self.get(database.reference(withPath: ".info/connected"), database) == "value false")
        #expect(Self.get(database.reference().child("a.b"), database) == "error com.firebase.core 9999 invalid_argument")
        do {
            _ = try await database.reference(withPath: "nothing").getData()
            Issue.record("getData did not throw offline")
        } catch {
            #expect((error as NSError).code == 1)
        }
        database.reference(withPath: "here").setValue(5, withCompletionBlock: nil)
        let snapshot = try await database.reference(withPath: "here").getData()
        #expect(snapshot.value as? Int == 5)
        #expect(snapshot.key == "here")
        #expect(connection.gets.isEmpty)
    }
}
