import CairnApp
import CairnDatabase
import CairnDatabaseCore
import Foundation
import Synchronization
import Testing

/// Bad keys, paths and URLs never stop the program: the reference carries the error and every use reports it.
@Suite("Database invalid input: references carry the error, nothing crashes", .serialized)
struct DatabaseInvalidInputTests {
    /// Each invalid key given to `child(_:)`, with the words its message must contain.
    static let invalidKeys: [(key: String, reason: String)] = [
        ("a.b", "'.'"), ("a#b", "'#'"), ("a$b", "'$'"), ("a[b", "'['"), ("a]b", "']'"),
        (String(repeating: "k", count: 769), "769 bytes"), ("", "empty"), ("a\u{01}b", "control character"),
    ]

    /// Every write, the transaction and the onDisconnect calls of `ref`, each recording `name <failure reason>`.
    static func useEverything(_ ref: DatabaseReference, _ seen: Recorder) {
        func record(_ name: String) -> (Error?, DatabaseReference) -> Void {
            { error, _ in seen.add("\(name) \((error as NSError?)?.localizedFailureReason ?? "ok")") }
        }
        ref.setValue(1, withCompletionBlock: record("set"))
        ref.setValue(1, andPriority: 2, withCompletionBlock: record("setWithPriority"))
        ref.removeValue(completionBlock: record("remove"))
        ref.setPriority(3, withCompletionBlock: record("setPriority"))
        ref.updateChildValues(["x": 1], withCompletionBlock: record("update"))
        ref.onDisconnectSetValue(1, withCompletionBlock: record("onDisconnectSet"))
        ref.onDisconnectUpdateChildValues(["x": 1], withCompletionBlock: record("onDisconnectUpdate"))
        ref.cancelDisconnectOperations(completionBlock: record("cancelDisconnect"))
        ref.runTransactionBlock({ data in
            seen.add("transaction block ran")
            return TransactionResult.success(withValue: data)
        }, andCompletionBlock: { error, committed, snapshot in
            seen.add("transaction \((error as NSError?)?.localizedFailureReason ?? "ok") \(committed) \(snapshot == nil ? "nil" : "snapshot")")
        })
        ref.observe(.value, with: { _ in seen.add("value") }, withCancel: { error in
            seen.add("cancel \((error as NSError).localizedFailureReason ?? "-")")
        })
    }

    static let expectedFailures = [
        "set invalid_argument", "setWithPriority invalid_argument", "remove invalid_argument",
        "setPriority invalid_argument", "update invalid_argument", "onDisconnectSet invalid_argument",
        "onDisconnectUpdate invalid_argument", "cancelDisconnect invalid_argument",
        "transaction invalid_argument false nil", "cancel invalid_argument",
    ]

    @Test("Each invalid key given to child(_:) fails every write, transaction and observer with its reason; nothing is sent")
    func invalidChildKeys() throws {
        let (database, connection) = makeDatabase()
        for (key, reason) in Self.invalidKeys {
            let seen = Recorder()
            let ref = database.reference(withPath: "users").child(key)
            Self.useEverything(ref, seen)
            database.waitForCallbacks()
            #expect(seen.entries.sorted() == Self.expectedFailures.sorted(), "key \(key.prefix(10).debugDescription)")

            var message = ""
            ref.setValue(1) { error, _ in message = (error as NSError?)?.localizedDescription ?? "" }
            database.waitForCallbacks()
            #expect(message.hasPrefix("(child:) Must be a non-empty string and not contain '.' '#' '$' '[' or ']'"), "\(message)")
            #expect(message.contains(reason), "\(message)")
            #expect(!ref.url.isEmpty)
        }
        #expect(connection.writes.isEmpty)
        #expect(connection.listens.isEmpty)
    }

    @Test("The async writes and the async transaction throw the reference's error")
    func asyncFormsThrow() async throws {
        let (database, connection) = makeDatabase()
        let ref = database.reference().child("bad.key")
        for attempt in 0..<4 {
            do {
                switch attempt {
                case 0: _ = try await ref.setValue(1)
                case 1: _ = try await ref.updateChildValues(["a": 1])
                case 2: _ = try await ref.removeValue()
                default: _ = try await ref.runTransactionBlock { TransactionResult.success(withValue: $0) }
                }
                Issue.record("attempt \(attempt) did not throw")
            } catch {
                #expect((error as NSError).localizedFailureReason == "invalid_argument")
                #expect((error as NSError).localizedDescription.contains("'.'"))
            }
        }
        #expect(connection.writes.isEmpty)
    }

    @Test("References and queries made from an invalid reference inherit its error")
    func derivedReferencesInherit() {
        let (database, connection) = makeDatabase()
        let bad = database.reference(withPath: "a").child("b$c")
        let derived: [DatabaseQuery] = [
            bad.child("ok"), bad.child("ok").child("deeper"), bad.childByAutoId(), bad.parent!, bad.root,
            bad.queryOrderedByKey().queryLimited(toFirst: 2), bad.queryLimited(toLast: 1).ref,
        ]
        let seen = Recorder()
        for query in derived {
            query.observe(.value, with: { _ in seen.add("value") }, withCancel: { error in
                seen.add((error as NSError).localizedDescription)
            })
            if let ref = query as? DatabaseReference {
                ref.setValue(1) { error, _ in seen.add((error as NSError?)?.localizedDescription ?? "written") }
            }
        }
        database.waitForCallbacks()
        #expect(seen.entries.count == 13)
        #expect(seen.entries.allSatisfy { $0.contains("the key \"b$c\" contains '$'") }, "\(seen.entries)")
        #expect(connection.writes.isEmpty)
        #expect(connection.listens.isEmpty)
        #expect(bad.child("ok").key == "ok")
    }

    @Test("reference(withPath:) and reference(fromURL:) with invalid input give references that carry the error")
    func invalidPathsAndURLs() {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        let refs = [
            database.reference(withPath: "rooms/a.b"),
            database.reference(withPath: "rooms/" + String(repeating: "x/", count: 40)),
            database.reference(fromURL: "https://some-other-db.firebaseio.com/rooms"),
            database.reference(fromURL: "not a url"),
            database.reference(fromURL: database.reference().url + "rooms/a%5Db"),
        ]
        for ref in refs {
            ref.setValue(1) { error, _ in seen.add((error as NSError?)?.localizedDescription ?? "written") }
        }
        database.waitForCallbacks()
        let messages = seen.entries
        #expect(messages.count == 5)
        #expect(messages[0].hasPrefix("(reference(withPath:)) Must be a non-empty string"))
        #expect(messages[1].contains("keys deep; the limit is 32"))
        #expect(messages[2].hasPrefix("Invalid URL (https://some-other-db.firebaseio.com/rooms) passed to getReference(). URL was expected to match configured Database URL"))
        #expect(messages[3].hasPrefix("Invalid URL (not a url) passed to reference(fromURL:)"))
        #expect(messages[4].contains("']'"))
        #expect(connection.writes.isEmpty)

        let valid = database.reference(fromURL: database.reference().url + "rooms/ok")
        valid.setValue(1) { error, _ in seen.add(error == nil ? "ok" : "error") }
        database.waitForCallbacks()
        #expect(connection.writes.map(\.path.description) == ["/rooms/ok"])
    }

    @Test("Writes, onDisconnect and transactions under .info fail with Firebase's message; the block never runs")
    func infoIsReadOnly() {
        let (database, connection, seen, connected) = scriptedDatabase(at: ".info/connected")
        connected.setValue(true) { error, _ in seen.add((error as NSError?)?.localizedDescription ?? "written") }
        connected.onDisconnectSetValue(true) { error, _ in seen.add((error as NSError?)?.localizedDescription ?? "written") }
        connected.runTransactionBlock({ data in
            seen.add("block ran")
            return TransactionResult.success(withValue: data)
        }, andCompletionBlock: { error, committed, _ in
            seen.add("\((error as NSError?)?.localizedDescription ?? "committed") \(committed)")
        })
        database.waitForCallbacks()
        #expect(seen.entries == [
            "(setValue:withCompletionBlock:) failed to path /.info/connected: Can't modify data under /.info/",
            "(onDisconnect) failed to path /.info/connected: Can't modify data under /.info/",
            "(runTransactionBlock:) failed to path /.info/connected: Can't modify data under /.info/ false",
        ])
        #expect(connection.writes.isEmpty)
    }

    @Test("Without a completion or cancel block the error goes to the unhandled-error sink, and the program goes on")
    func unhandledErrorsReported() {
        let messages = Recorder()
        let previous = UnhandledErrors.sink.withLock { sink in
            let old = sink
            sink = { messages.add($0) }
            return old
        }
        defer { UnhandledErrors.sink.withLock { $0 = previous } }
        let (database, connection) = makeDatabase()
        let bad = database.reference(withPath: "unhandled").child("x#y")
        bad.setValue(1)
        bad.observe(.value) { _ in }
        bad.runTransactionBlock { TransactionResult.success(withValue: $0) }
        bad.keepSynced(true)
        database.reference(withPath: ".info/connected").removeValue()
        database.waitForCallbacks()
        let mine = messages.entries.filter { $0.contains("x#y") || $0.contains(".info/connected") }
        #expect(mine.count == 5, "\(messages.entries)")
        #expect(mine.allSatisfy { $0.contains("Must be a non-empty string") || $0.contains("Can't modify data under /.info/") })
        #expect(connection.writes.isEmpty)

        let good = database.reference(withPath: "unhandled/ok")
        good.setValue(1)
        database.waitForCallbacks()
        #expect(connection.writes.count == 1)
    }
}
