import ArgumentParser
import CairnDatabase
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `cairn database-child`: a Realtime Database client in a process of its own, for the end-to-end tests
/// (Tests/CairnDatabaseEndToEndTests). Only the public CairnDatabase API, plus the package
/// `usePersistenceDirectory` for the cache directory.
///
/// - `write DIR`: persistence on, `goOffline()`, `count` writes in order — write `i` sets `items/w<i>` (three
///   digits) to `{i: i, at: ServerValue.timestamp()}`, then merges `{last: i}` into `meta` — waits until local
///   listeners show every item and `meta/last == count - 1` (each write is in the cache before its event), prints
///   `written N` and ends at once with `_exit(0)`: no clean shutdown.
/// - `sync DIR`: reopens the same cache online (the restored writes are sent again), prints `connected` when
///   `.info/connected` is true, then runs until killed.
/// - `presence --id ID`: on `.info/connected == true`, `onDisconnectSetValue("offline")` on `status/ID`, then
///   `setValue("online")`; with `--cancel`, then `cancelDisconnectOperations`; prints `online` when every
///   completion succeeded, then runs until killed.
/// - `increment --count N`: N `runTransactionBlock` increments of `counter`, one after another (DatabaseChildIncrement.swift).
/// - `keep DIR --count N [--offline]`: `keepSynced(true)` on `kept` with a 1 MiB cache, N large paths loaded and
///   traffic until pruning ran; `--offline` reopens the cache offline and prints `kept` (DatabaseChildKeepSynced.swift).
/// - `tolast DIR [--offline]`: Firebase's `queryLimited(toLast:)` example across a restart (DatabaseChildLimitToLast.swift).
///
/// A failed completion prints `error: ...` on stderr and exits with status 1.
///
///     cairn database-child write /tmp/cache --emulator 127.0.0.1:9000 --ns demo --count 5
///     cairn database-child sync /tmp/cache --emulator 127.0.0.1:9000 --ns demo
///     cairn database-child presence --emulator 127.0.0.1:9000 --ns demo --id ada --cancel
///     cairn database-child increment --emulator 127.0.0.1:9000 --ns demo --count 25
///     cairn database-child keep /tmp/cache --emulator 127.0.0.1:9000 --ns demo --count 20 [--offline]
///     cairn database-child tolast /tmp/cache --emulator 127.0.0.1:9000 --ns demo [--offline]
struct DatabaseChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database-child",
        abstract: "A Realtime Database client for the end-to-end tests: offline writes, sync, presence, transactions, keepSynced, toLast.",
        shouldDisplay: false)

    enum Phase: String, ExpressibleByArgument, CaseIterable {
        case write, sync, presence, increment, keep, tolast
    }

    @Argument(help: "write: offline writes, then exit abruptly; sync: reopen online; presence: online with onDisconnect; increment: transactions; keep: keepSynced and pruning; tolast: toLast queries across a restart.")
    var phase: Phase

    @Argument(help: "The persistent cache directory (write, sync, keep, tolast).")
    var directory: String?

    @Option(help: "The Realtime Database emulator, host:port.")
    var emulator: EmulatorAddress

    @Option(name: .customLong("ns"), help: "The namespace (database name).")
    var namespace: String

    @Option(help: "How many writes (write), transactions (increment) or large paths to load (keep).")
    var count = 5

    @Option(help: "The presence id: the child writes status/<id> (presence).")
    var id: String?

    @Flag(help: "Cancel the onDisconnect operation after registering it (presence).")
    var cancel = false

    @Flag(help: "Reopen the cache offline (keep: print kept, then exit; tolast: the offline part, then goOnline).")
    var offline = false

    func validate() throws {
        switch phase {
        case .write, .sync, .keep, .tolast:
            guard directory != nil else { throw ValidationError("\(phase.rawValue) needs the cache directory") }
        case .presence:
            guard let id, !id.isEmpty else { throw ValidationError("presence needs --id") }
        case .increment:
            break
        }
        guard (1...1000).contains(count) else { throw ValidationError("--count must be between 1 and 1000") }
    }

    /// The key of write `i`'s item.
    static func itemKey(_ i: Int) -> String { String(format: "w%03d", i) }

    func run() throws {
        let database = open()
        switch phase {
        case .write: writeOffline(database)
        case .sync: announceConnected(database)
        case .presence: announcePresence(database, id: id ?? "", cancel: cancel)
        case .increment: increment(database, times: count)
        case .keep: offline ? readKeptOffline(database) : keepSynced(database, paths: count)
        case .tolast: offline ? limitToLastAfterRestart(database) : cacheLimitToLast(database)
        }
        dispatchMain()
    }

    /// `keep` runs with the smallest cache Firebase allows (1 MiB), so that pruning runs.
    private func open() -> Database {
        openDatabase(
            app: "database-child", namespace: namespace, emulator: emulator,
            queue: DispatchQueue(label: "cairn.database-child.callbacks"), directory: directory,
            cacheSize: phase == .keep ? 1 << 20 : nil)
    }

    /// `value` fires only from a complete cache, and `items` was never loaded from a server: the items are
    /// counted with `childAdded`; `meta/last` is a leaf the merges wrote whole, so its `value` fires.
    private func writeOffline(_ database: Database) {
        database.goOffline()
        let count = self.count
        var items = Set<String>()
        var last: Int?
        func finishIfDone() {
            guard items.count == count, last == count - 1 else { return }
            printNow("written \(count)")
            _exit(0)
        }
        database.reference(withPath: "items").observe(.childAdded) { snapshot in
            items.insert(snapshot.key)
            finishIfDone()
        }
        database.reference(withPath: "meta/last").observe(.value) { snapshot in
            last = snapshot.value as? Int
            finishIfDone()
        }
        for i in 0..<count {
            database.reference(withPath: "items/\(Self.itemKey(i))").setValue(["i": i, "at": ServerValue.timestamp()])
            database.reference(withPath: "meta").updateChildValues(["last": i])
        }
    }

    private func announceConnected(_ database: Database) {
        var announced = false
        database.reference(withPath: ".info/connected").observe(.value) { snapshot in
            guard !announced, snapshot.value as? Bool == true else { return }
            announced = true
            printNow("connected")
        }
    }

    private func announcePresence(_ database: Database, id: String, cancel: Bool) {
        let status = database.reference(withPath: "status/\(id)")
        var started = false
        database.reference(withPath: ".info/connected").observe(.value) { snapshot in
            guard !started, snapshot.value as? Bool == true else { return }
            started = true
            var completions = 0
            let expected = cancel ? 3 : 2
            let completed: (Error?, DatabaseReference) -> Void = { error, _ in
                if let error { Self.fail("\(error)") }
                completions += 1
                if completions == expected { printNow("online") }
            }
            status.onDisconnectSetValue("offline", withCompletionBlock: completed)
            status.setValue("online", withCompletionBlock: completed)
            if cancel { status.cancelDisconnectOperations(completionBlock: completed) }
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        _exit(1)
    }
}
