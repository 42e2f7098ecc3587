import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

/// Every warning line the databases of this test process log (cache in use, recovered, writes restored), kept
/// for the tests to search by their own directory. Installed once and never replaced, so tests running in
/// parallel do not take each other's lines.
final class WarningLines: @unchecked Sendable {
    static let shared: WarningLines = {
        let lines = WarningLines()
        DatabaseLog.warningSink.withLock { $0 = { lines.add($0) } }
        return lines
    }()

    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    func containing(_ text: String) -> [String] { lock.withLock { lines.filter { $0.contains(text) } } }
}

/// A database with persistence on in `directory`, on its own app and the scripted connection, offline until the
/// test connects it. "Restarting" deletes the app (which closes the cache) and makes another on the directory.
func makePersistentDatabase(_ directory: String, clock: @escaping @Sendable () -> Date = { Date() },
                            getDataWait: TimeInterval = 3) -> (Database, ScriptedConnection, FirebaseApp) {
    _ = WarningLines.shared
    let name = "rtdbp-" + UUID().uuidString.prefix(8).lowercased()
    let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
    options.databaseURL = "https://persist-test.firebaseio.com"
    FirebaseApp.configure(name: name, options: options)
    let app = FirebaseApp.app(name: name)!
    let database = Database.database(app: app)
    database.callbackQueue = DispatchQueue(label: "test.callbacks." + name)
    database.isPersistenceEnabled = true
    database.usePersistenceDirectory(directory)
    let connection = ScriptedConnection()
    database.useConnection(connection, clock: clock, getDataWait: getDataWait)
    return (database, connection, app)
}

func restart(_ app: FirebaseApp) { app.delete { _ in } }

func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("rtdbp-api-" + UUID().uuidString.prefix(8)).path
}

@Suite("Database persistence: restarts, the documented limit example, one owner, damage")
struct DatabasePersistenceTests {
    @Test("Pending writes survive a restart and are sent again in order, server values resolved anew; one line says the completions are lost")
    func pendingWritesAcrossRestart() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, firstConnection, firstApp) = makePersistentDatabase(directory, clock: { Date(timeIntervalSince1970: 1000) })
        let completions = Recorder()
        first.reference(withPath: "log/a").setValue(["at": ServerValue.timestamp(), "n": 1]) { error, _ in completions.add("a \(error == nil)") }
        first.reference(withPath: "log").updateChildValues(["b": 2, "c/d": 3]) { error, _ in completions.add("b \(error == nil)") }
        first.reference(withPath: "log/e").setValue("acked") { error, _ in completions.add("e \(error == nil)") }
        first.waitForCallbacks()
        #expect(firstConnection.writes.map { "\($0.action) \($0.path)" } == ["p /log/a", "m /log", "p /log/e"])
        firstConnection.writes[2].complete(.ok)
        first.waitForCallbacks()
        #expect(completions.take() == ["e true"])
        restart(firstApp)

        let (second, connection, secondApp) = makePersistentDatabase(directory, clock: { Date(timeIntervalSince1970: 2000) })
        defer { restart(secondApp) }
        let seen = Recorder()
        second.reference(withPath: "log").observe(.childAdded) { seen.add("added \($0.key) \(text($0.value))") }
        second.reference(withPath: "log/c/d").observe(.value) { seen.add("c/d \(text($0.value))") }
        second.waitForCallbacks()
        // Re-sent in order, unresolved; applied locally with server values resolved by the new session's clock,
        // over the acknowledged write, which the cache kept as server data.
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["p /log/a", "m /log"])
        try #require(connection.writes.count == 2)
        #expect(connection.writes[0].data == .object(["at": .object([".sv": .string("timestamp")]), "n": .int(1)]))
        // `c` is not a complete child (only c/d is known), so it raises no childAdded, as in Firebase.
        #expect(seen.take() == [#"added a {"at":2000000,"n":1}"#, "added b 2", #"added e "acked""#, "c/d 3"])
        #expect(WarningLines.shared.containing("2 pending write(s) of an earlier session were restored").count >= 1)
        // New writes get ids after the restored ones; an ack of a restored write finishes it.
        second.reference(withPath: "log/f").setValue(4)
        connection.writes[0].complete(.ok)
        connection.writes[1].complete(.ok)
        second.waitForCallbacks()
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["p /log/a", "m /log", "p /log/f"])
        #expect(completions.take().isEmpty, "the first session's completion blocks are gone")
    }

    @Test("The documented example: toLast(4) cached online; after an offline restart toLast(2) raises childAdded for the top 2 and no value, toLast(6) the 4 at once, the rest and a value online")
    func limitToLastExampleAcrossRestart() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, firstConnection, firstApp) = makePersistentDatabase(directory)
        let scores = first.reference(withPath: "scores").queryOrderedByValue()
        scores.queryLimited(toLast: 4).observe(.value) { _ in }
        first.waitForCallbacks()
        firstConnection.connect()
        let listen = try #require(firstConnection.listens.first)
        try firstConnection.push("scores", #"{"c": 30, "d": 40, "e": 50, "f": 60}"#, tag: listen.tag)
        listen.complete(.ok)
        first.waitForCallbacks()
        restart(firstApp)

        let (second, connection, secondApp) = makePersistentDatabase(directory)
        defer { restart(secondApp) }
        let top2 = Recorder()
        let query2 = second.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 2)
        query2.observe(.childAdded) { top2.add("added \($0.key)") }
        query2.observe(.value) { top2.add("value \(text($0.value))") }
        second.waitForCallbacks()
        #expect(top2.take() == ["added e", "added f"])

        let top6 = Recorder()
        let query6 = second.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 6)
        query6.observe(.childAdded) { top6.add("added \($0.key)") }
        query6.observe(.value) { top6.add("value \(text($0.value))") }
        second.waitForCallbacks()
        #expect(top6.take() == ["added c", "added d", "added e", "added f"])

        connection.connect()
        let listen6 = try #require(connection.listens.first { $0.query.params.limit == 6 })
        try connection.push("scores", #"{"a": 10, "b": 20, "c": 30, "d": 40, "e": 50, "f": 60}"#, tag: listen6.tag)
        listen6.complete(.ok)
        second.waitForCallbacks()
        #expect(top6.take() == ["added a", "added b", #"value {"a":10,"b":20,"c":30,"d":40,"e":50,"f":60}"#])
    }

    @Test("The toLast(4) query itself fires childAdded ×4 and value from disk after an offline restart")
    func completeQueryServedOffline() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, firstConnection, firstApp) = makePersistentDatabase(directory)
        first.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 4).observe(.value) { _ in }
        first.reference(withPath: "profile").observe(.value) { _ in }
        first.waitForCallbacks()
        firstConnection.connect()
        for listen in firstConnection.listens {
            if listen.tag != nil {
                try firstConnection.push("scores", #"{"c": 30, "d": 40, "e": 50, "f": 60}"#, tag: listen.tag)
            } else {
                try firstConnection.push("profile", #"{"name": "Ada"}"#)
            }
            listen.complete(.ok)
        }
        first.waitForCallbacks()
        restart(firstApp)

        let (second, _, secondApp) = makePersistentDatabase(directory)
        defer { restart(secondApp) }
        let seen = Recorder()
        let query = second.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 4)
        query.observe(.childAdded) { seen.add("added \($0.key)") }
        query.observe(.value) { seen.add("value \(text($0.value))") }
        second.reference(withPath: "profile/name").observe(.value) { seen.add("name \(text($0.value))") }
        second.reference(withPath: "elsewhere").observe(.value) { seen.add("elsewhere \(text($0.value))") }
        second.waitForCallbacks()
        #expect(seen.take() == ["added c", "added d", "added e", "added f", #"value {"c":30,"d":40,"e":50,"f":60}"#, #"name "Ada""#])
    }

    @Test("getData offline after a restart: complete cached data at once, incomplete cached data after the wait, nothing cached fails")
    func getDataFromDisk() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, firstConnection, firstApp) = makePersistentDatabase(directory)
        first.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 2).observe(.value) { _ in }
        first.reference(withPath: "profile").observe(.value) { _ in }
        first.waitForCallbacks()
        firstConnection.connect()
        for listen in firstConnection.listens {
            if listen.tag != nil {
                try firstConnection.push("scores", #"{"e": 50, "f": 60}"#, tag: listen.tag)
            } else {
                try firstConnection.push("profile", #"{"name": "Ada"}"#)
            }
            listen.complete(.ok)
        }
        first.waitForCallbacks()
        restart(firstApp)

        let (second, connection, secondApp) = makePersistentDatabase(directory, getDataWait: 0.2)
        defer { restart(secondApp) }
        let answers = Recorder()
        second.reference(withPath: "profile/name").getData { error, snapshot in answers.add("name \(error == nil) \(text(snapshot?.value))") }
        second.waitForCallbacks()
        #expect(answers.take() == [#"name true "Ada""#], "complete on disk: at once, without a get")
        #expect(connection.gets.isEmpty)
        second.reference(withPath: "scores").getData { error, snapshot in answers.add("scores \(error == nil) \(text(snapshot?.value))") }
        second.reference(withPath: "nothing").getData { error, _ in answers.add("nothing \((error as NSError?)?.code ?? 0)") }
        Thread.sleep(forTimeInterval: 0.5)
        second.waitForCallbacks()
        #expect(answers.take().sorted() == [#"nothing 1"#, #"scores true {"e":50,"f":60}"#])
    }

    @Test("A second database on a directory in use keeps its cache in memory, with one logged line; the first is untouched")
    func secondOwnerFallsBackToMemory() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (first, _, firstApp) = makePersistentDatabase(directory)
        first.reference(withPath: "a").setValue(1)
        first.waitForCallbacks()
        let (second, _, secondApp) = makePersistentDatabase(directory)
        second.reference(withPath: "b").setValue(2)
        second.waitForCallbacks()
        #expect(WarningLines.shared.containing("\(directory) is in use").count == 1)
        restart(secondApp)
        restart(firstApp)
        let (third, connection, thirdApp) = makePersistentDatabase(directory)
        defer { restart(thirdApp) }
        third.reference(withPath: "x").observe(.value) { _ in }
        third.waitForCallbacks()
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["p /a"], "only the owner's write was persisted")
    }

    @Test("A damaged cache is moved aside, its intact records salvaged (pending writes kept), with one logged line")
    func damagedCacheRecovers() throws {
        let directory = temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: (directory as NSString).deletingLastPathComponent)) ?? []
            where name.hasPrefix((directory as NSString).lastPathComponent + ".damaged-") {
                try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent + "/" + name)
            }
        }
        let (first, _, firstApp) = makePersistentDatabase(directory)
        first.reference(withPath: "pending").setValue("kept")
        first.waitForCallbacks()
        restart(firstApp)
        try FileManager.default.removeItem(atPath: directory + "/MANIFEST")

        let (second, connection, secondApp) = makePersistentDatabase(directory)
        defer { restart(secondApp) }
        second.reference(withPath: "pending").observe(.value) { _ in }
        second.waitForCallbacks()
        #expect(connection.writes.map { "\($0.action) \($0.path)" } == ["p /pending"])
        let lines = WarningLines.shared.containing("\(directory) was damaged")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("1 pending write(s)") == true, "\(lines)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: (directory as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix((directory as NSString).lastPathComponent + ".damaged-") }
        #expect(aside.count == 1)
    }

    @Test("Without persistence nothing is written to disk; the default directory is per app, host and namespace")
    func memoryOnlyAndDefaultDirectory() throws {
        let (database, _) = makeDatabase()
        database.reference(withPath: "a").setValue(1)
        database.waitForCallbacks()
        #expect(!FileManager.default.fileExists(atPath: database.cacheDirectory))
        let environment = ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]
        #expect(Database.defaultCacheDirectory(appName: "__FIRAPP_DEFAULT", host: "my-db.firebaseio.com", namespace: "my-db", environment: environment)
            == "/data/cairn/_database/my-db.firebaseio.com/my-db")
        #expect(Database.defaultCacheDirectory(appName: "other/../app", host: "localhost:9000", namespace: "..", environment: ["HOME": "/home/u"])
            == "/home/u/.local/share/cairn/@other%2F..%2Fapp/_database/localhost%3A9000/%2E%2E")
    }
}
