import CairnDatabase
import CairnDatabaseCore
import Foundation

/// A database of its own app and namespace, on the scripted connection, with callbacks on a private queue.
func makeDatabase(clock: @escaping @Sendable () -> Date = { Date() }, getDataWait: TimeInterval = 3) -> (Database, ScriptedConnection) {
    let name = "rtdb-" + UUID().uuidString.prefix(8).lowercased()
    let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
    options.databaseURL = "https://\(name).firebaseio.com"
    FirebaseApp.configure(name: name, options: options)
    let database = Database.database(app: FirebaseApp.app(name: name)!)
    database.callbackQueue = DispatchQueue(label: "test.callbacks." + name)
    let connection = ScriptedConnection()
    database.useConnection(connection, clock: clock, getDataWait: getDataWait)
    return (database, connection)
}

/// What most tests start from: a scripted database as ``makeDatabase(clock:getDataWait:)`` makes it, a recorder for
/// what its callbacks see, and its reference at `path`.
func scriptedDatabase(at path: String, clock: @escaping @Sendable () -> Date = { Date() }, getDataWait: TimeInterval = 3)
    -> (database: Database, connection: ScriptedConnection, seen: Recorder, ref: DatabaseReference) {
    let (database, connection) = makeDatabase(clock: clock, getDataWait: getDataWait)
    return (database, connection, Recorder(), database.reference(withPath: path))
}

/// A scripted database whose `list` the server has set to `{"a": 1}`, with its child_added, child_removed and value
/// events recorded in `seen` ("added k", "removed k", "value {...}"); the events so far are left in `seen`.
func observedList() throws -> (database: Database, connection: ScriptedConnection, seen: Recorder, list: DatabaseReference) {
    let (database, connection, seen, list) = scriptedDatabase(at: "list")
    list.observe(.childAdded) { seen.add("added \($0.key)") }
    list.observe(.childRemoved) { seen.add("removed \($0.key)") }
    list.observe(.value) { seen.add("value \(text($0.value))") }
    database.waitForCallbacks()
    try connection.push("list", #"{"a": 1}"#)
    database.waitForCallbacks()
    return (database, connection, seen, list)
}

/// Collects what the callbacks saw, in order, as short strings.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    func add(_ entry: String) { lock.withLock { stored.append(entry) } }
    var entries: [String] { lock.withLock { stored } }

    /// Takes the entries so far.
    func take() -> [String] { lock.withLock { defer { stored = [] }; return stored } }
}

/// A value as compact JSON with sorted keys (`nil` as null), for comparisons.
func text(_ value: Any?) -> String {
    guard let value else { return "null" }
    if let string = value as? String { return "\"\(string)\"" }
    if let dictionary = value as? [String: Any] {
        return "{" + dictionary.keys.sorted().map { "\"\($0)\":\(text(dictionary[$0]))" }.joined(separator: ",") + "}"
    }
    if let array = value as? [Any] { return "[" + array.map { text($0) }.joined(separator: ",") + "]" }
    if value is NSNull { return "null" }
    return "\(value)"
}
