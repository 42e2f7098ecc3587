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

/// Records `list`'s child_added, child_removed and value events into `seen` ("added k", "removed k", "value {...}").
func recordListEvents(_ list: DatabaseReference, into seen: Recorder) {
    list.observe(.childAdded) { seen.add("added \($0.key)") }
    list.observe(.childRemoved) { seen.add("removed \($0.key)") }
    list.observe(.value) { seen.add("value \(text($0.value))") }
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
