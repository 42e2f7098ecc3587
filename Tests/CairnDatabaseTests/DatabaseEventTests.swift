import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("Database events through the public observers")
struct DatabaseEventTests {
    @Test("Server data raises child_added with previous-sibling keys in the query's order, then value")
    func childEventsWithPreviousKeys() throws {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        let query = database.reference(withPath: "scores").queryOrderedByValue()
        query.observe(.childAdded, andPreviousSiblingKeyWith: { snapshot, previous in
            seen.add("added \(snapshot.key) after \(previous ?? "nil")")
        })
        query.observe(.value) { snapshot in
            let keys = snapshot.children.allObjects.map { ($0 as! DataSnapshot).key }
            seen.add("value \(keys.joined(separator: ","))")
        }
        database.waitForCallbacks()
        #expect(connection.listens.map(\.query.path.description) == ["/scores"])
        try connection.push("scores", #"{"a": 3, "b": 1, "c": 2}"#)
        connection.listens[0].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take() == ["added b after nil", "added c after b", "added a after c", "value b,c,a"])

        try connection.push("scores", #"{"d": 0, "a": null}"#, merge: true)
        database.waitForCallbacks()
        #expect(seen.take() == ["added d after nil", "value d,b,c"])
    }

    @Test("child_changed and child_removed reach their observers; removeObserver stops a handle")
    func changedRemovedAndRemoval() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "users")
        ref.observe(.childChanged) { seen.add("changed \($0.key)=\(text($0.value))") }
        ref.observe(.childRemoved) { seen.add("removed \($0.key)") }
        let handle = ref.observe(.value) { seen.add("value \(text($0.value))") }
        database.waitForCallbacks()
        try connection.push("users", #"{"ada": 1, "bob": 2}"#)
        database.waitForCallbacks()
        #expect(seen.take() == [#"value {"ada":1,"bob":2}"#])

        ref.removeObserver(withHandle: handle)
        try connection.push("users", #"{"ada": 5}"#)
        database.waitForCallbacks()
        #expect(seen.take() == ["removed bob", "changed ada=5"])
    }

    @Test("observeSingleEvent fires once, then its registration is gone")
    func singleEvent() throws {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        database.reference(withPath: "a").observeSingleEvent(of: .value) { seen.add("once \(text($0.value))") }
        database.waitForCallbacks()
        try connection.push("a", "1")
        database.waitForCallbacks()
        try connection.push("a", "2")
        database.waitForCallbacks()
        #expect(seen.entries == ["once 1"])
        #expect(connection.unlistens.map(\.path.description) == ["/a"])
    }

    @Test(".info/connected follows the connection; .info/serverTimeOffset appears with the handshake")
    func infoConnected() throws {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        database.reference(withPath: ".info/connected").observe(.value) { seen.add("connected \(text($0.value))") }
        database.reference(withPath: ".info/serverTimeOffset").observe(.value) { seen.add("offset \(text($0.value))") }
        database.waitForCallbacks()
        #expect(seen.take() == ["connected false"])
        #expect(connection.listens.isEmpty)

        connection.connect(serverTimeOffset: 250)
        database.waitForCallbacks()
        #expect(seen.take() == ["offset 250.0", "connected true"])
        connection.disconnect()
        database.waitForCallbacks()
        #expect(seen.take() == ["connected false"])
    }
}
