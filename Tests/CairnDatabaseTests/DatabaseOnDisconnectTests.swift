import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

@Suite("onDisconnect operations, mirrored locally")
struct DatabaseOnDisconnectTests {
    @Test("Accepted operations apply locally when the connection drops, once; unaccepted and cancelled ones do not")
    func appliedOnDisconnect() throws {
        let (database, connection, seen, presence) = scriptedDatabase(at: "presence", clock: { Date(timeIntervalSince1970: 1_000) })
        presence.observe(.value) { seen.add(text($0.value)) }
        database.waitForCallbacks()
        connection.connect()
        try connection.push("presence", #"{"a": true, "b": true, "c": {"x": 1, "y": 2}}"#)
        database.waitForCallbacks()
        #expect(seen.take() == [#"{"a":true,"b":true,"c":{"x":1,"y":2}}"#])

        presence.child("a").onDisconnectRemoveValue()
        presence.child("b").onDisconnectSetValue("gone")
        presence.child("c").onDisconnectSetValue(["x": 5, "y": 6])
        presence.onDisconnectUpdateChildValues(["last": ServerValue.timestamp()]) { error, _ in seen.add("update \(error == nil)") }
        database.waitForCallbacks()
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["o /presence/a", "o /presence/b", "o /presence/c", "om /presence"])
        for index in [0, 2, 3] { connection.writes[index].complete(.ok) }
        presence.child("c/x").cancelDisconnectOperations { error, ref in seen.add("cancel \(error == nil) \(ref.key ?? "")") }
        database.waitForCallbacks()
        try #require(connection.writes.count == 5)
        #expect(connection.writes[4].action == "oc")
        connection.writes[4].complete(.ok)
        database.waitForCallbacks()
        #expect(seen.take() == ["update true", "cancel true x"])

        // As in Firebase, each remembered operation is applied as its own server overwrite: one value event each.
        connection.disconnect()
        database.waitForCallbacks()
        #expect(seen.take().last == #"{"b":true,"c":{"x":1,"y":6},"last":1000000}"#)

        connection.connect()
        try connection.push("presence", #"{"a": 1}"#)
        connection.disconnect()
        database.waitForCallbacks()
        #expect(seen.take() == [#"{"a":1}"#])
    }
}
