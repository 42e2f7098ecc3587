import CairnDatabase
import CairnDatabaseCore
import CairnTestSupport
import Foundation
import Synchronization
import Testing

/// Serialized: the class-level goOffline/goOnline test reaches every started database, the app-deletion test too.
@Suite("Database API: queries, push ids, settings, references", .serialized)
struct DatabaseAPITests {
    @Test("Invalid query builders report invalid_argument to the cancel block and listen to nothing")
    func queryValidation() {
        let (database, connection, seen, ref) = scriptedDatabase(at: "q")
        let invalid: [DatabaseQuery] = [
            ref.queryOrderedByKey().queryOrderedByValue(),
            ref.queryLimited(toFirst: 1).queryLimited(toLast: 1),
            ref.queryLimited(toFirst: 0),
            ref.queryOrderedByKey().queryStarting(atValue: 1),
            ref.queryStarting(atValue: 1).queryEqual(toValue: 2),
            ref.queryStarting(atValue: ["a": 1]),
        ]
        for query in invalid {
            query.observe(.value, with: { _ in seen.add("value") }, withCancel: { error in
                seen.add((error as NSError).localizedFailureReason ?? "none")
            })
        }
        database.waitForCallbacks()
        #expect(seen.entries == Array(repeating: "invalid_argument", count: invalid.count))
        #expect(connection.listens.isEmpty)

        ref.queryOrderedByKey().queryStarting(atValue: "b").queryLimited(toFirst: 2).observe(.value) { _ in }
        database.waitForCallbacks()
        #expect(connection.listens.count == 1)
        #expect(connection.listens.first?.tag != nil)
    }

    @Test("childByAutoId keys are 20 characters, time-ordered and strictly increasing within a millisecond")
    func pushIDs() throws {
        let (database, _) = makeDatabase()
        let ref = database.reference(withPath: "posts")
        let keys = (0..<2_000).map { _ in ref.childByAutoId().key! }
        #expect(keys.allSatisfy { $0.count == 20 })
        for (a, b) in zip(keys, keys.dropFirst()) { #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))) }
        Thread.sleep(forTimeInterval: 0.002)
        let later = ref.childByAutoId().key!
        #expect(later.prefix(8) > keys[0].prefix(8))
    }

    @Test("Settings apply before first use and are frozen after it; the cache size stays within 1-100 MiB")
    func settingsFrozen() {
        let (database, _) = makeDatabase()
        #expect(database.persistenceCacheSizeBytes == 10 * 1024 * 1024)
        database.persistenceCacheSizeBytes = 512 * 1024
        #expect(database.persistenceCacheSizeBytes == 10 * 1024 * 1024)
        database.persistenceCacheSizeBytes = 101 * 1024 * 1024
        #expect(database.persistenceCacheSizeBytes == 10 * 1024 * 1024)
        database.persistenceCacheSizeBytes = 2 * 1024 * 1024
        #expect(database.persistenceCacheSizeBytes == 2 * 1024 * 1024)

        database.reference(withPath: "x").observe(.value) { _ in }
        database.isPersistenceEnabled = true
        database.persistenceCacheSizeBytes = 3 * 1024 * 1024
        #expect(!database.isPersistenceEnabled)
        #expect(database.persistenceCacheSizeBytes == 2 * 1024 * 1024)
    }

    @Test("References: key, parent, root, url and child paths")
    func references() {
        let (database, _) = makeDatabase()
        let ref = database.reference(withPath: "users/ada").child("name")
        #expect(ref.key == "name")
        #expect(ref.parent?.key == "ada")
        #expect(ref.root.key == nil && ref.root.parent == nil)
        #expect(ref.url.hasSuffix(".firebaseio.com/users/ada/name"))
        #expect(database.reference(fromURL: ref.url).url == ref.url)
    }

    @Test("Deleting the app takes its databases offline and forgets them")
    func appDeletion() {
        let name = "rtdb-delete-" + UUID().uuidString.prefix(6)
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "https://delete-me.firebaseio.com"
        FirebaseApp.configure(name: name, options: options)
        let first = Database.database(app: FirebaseApp.app(name: name)!)
        let connection = ScriptedConnection()
        first.useConnection(connection)
        #expect(Database.database(app: FirebaseApp.app(name: name)!) === first)
        first.reference().observe(.value) { _ in }
        first.waitForCallbacks()
        #expect(!connection.interrupted)
        FirebaseApp.app(name: name)!.delete { _ in }
        first.waitForCallbacks()
        #expect(connection.interrupted)
    }

    @Test("The class-level goOffline and goOnline reach every started database and start none")
    func classLevelConnection() async {
        // Every database of the process goes offline: not while the end-to-end tests hold connections.
        await ExclusiveTestSection.realtimeDatabaseConnections.run {
            let (first, firstConnection) = makeDatabase()
            let (_, unstarted) = makeDatabase()
            first.reference(withPath: "x").observe(.value) { _ in }
            first.waitForCallbacks()
            DatabaseReference.goOffline()
            first.waitForCallbacks()
            #expect(firstConnection.interrupted)
            #expect(unstarted.delegate == nil)
            DatabaseReference.goOnline()
            first.waitForCallbacks()
            #expect(!firstConnection.interrupted)
        }
    }

    @Test("setLoggingEnabled logs requests, answers and the connection while on, nothing while off")
    func loggingEnabled() {
        let lines = Recorder()
        let previous = DatabaseLog.sink.withLock { sink in
            let old = sink
            sink = { lines.add($0) }
            return old
        }
        defer {
            Database.setLoggingEnabled(false)
            DatabaseLog.sink.withLock { $0 = previous }
        }
        let (database, connection) = makeDatabase()
        database.reference(withPath: "logged/quiet").setValue(0)
        database.waitForCallbacks()
        Database.setLoggingEnabled(true)
        database.reference(withPath: "logged/loud").setValue(1)
        database.waitForCallbacks()
        connection.writes[1].complete(.ok)
        database.waitForCallbacks()
        Database.setLoggingEnabled(false)
        database.reference(withPath: "logged/after").setValue(2)
        database.waitForCallbacks()
        let mine = lines.entries.filter { $0.contains("/logged/") }
        #expect(mine == ["p /logged/loud", "p /logged/loud: ok"])
    }

    @Test("setLoggingEnabled's lines reach the program's swift-log handler as cairn.database debug lines, only while on")
    func loggingThroughSwiftLog() {
        let capture = LogCapture.start()
        defer { Database.setLoggingEnabled(false) }
        let (database, _) = makeDatabase()
        database.reference(withPath: "swiftlog/quiet").setValue(0)
        database.waitForCallbacks()
        Database.setLoggingEnabled(true)
        database.reference(withPath: "swiftlog/loud").setValue(1)
        database.waitForCallbacks()
        Database.setLoggingEnabled(false)
        database.reference(withPath: "swiftlog/after").setValue(2)
        database.waitForCallbacks()
        let lines = capture.stop().filter { $0.message.contains("/swiftlog/") }
        #expect(lines.map(\.description) == ["debug cairn.database: p /swiftlog/loud"])
    }
}
