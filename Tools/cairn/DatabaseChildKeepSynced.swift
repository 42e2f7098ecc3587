import CairnDatabase
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `cairn database-child keep DIR --count N`: persistence with a 1 MiB cache, `keepSynced(true)` on `kept`, and a
/// `value` observer on it that prints `kept <JSON>` (sorted keys) for every value and `ready` after the first.
/// Once `kept` holds a value, the observer is removed (only `keepSynced` keeps it listened to from then on) and it
/// loads `big/b000` … `big/b<N-1>` once each (`observeSingleEvent`, so each becomes an inactive query the cache
/// may prune), then listens to `ticks` and prints `loaded N` with its first value;
/// when `ticks/done` is true (after the server traffic the test makes) it prints `ticks done` and ends with
/// `_exit(0)`: no clean shutdown.
///
/// `keep DIR --offline`: the same cache reopened offline; prints `kept <JSON>` from the first `value` event and
/// ends with `_exit(0)`.
extension DatabaseChildCommand {
    /// The key of large path `i`.
    static func bigKey(_ i: Int) -> String { String(format: "b%03d", i) }

    func keepSynced(_ database: Database, paths: Int) {
        let kept = database.reference(withPath: "kept")
        kept.keepSynced(true)
        var ready = false
        var handle: DatabaseHandle = 0
        handle = kept.observe(.value) { snapshot in
            printNow("kept \(Self.json(snapshot.value))")
            if !ready {
                ready = true
                printNow("ready")
            }
            guard snapshot.exists() else { return }
            kept.removeObserver(withHandle: handle)
            Self.load(database, paths: paths)
        }
    }

    private static func load(_ database: Database, paths: Int) {
        var loaded = 0
        for i in 0..<paths {
            database.reference(withPath: "big/\(bigKey(i))").observeSingleEvent(of: .value) { _ in
                loaded += 1
                if loaded == paths { listenToTicks(database, paths: paths) }
            }
        }
    }

    private static func listenToTicks(_ database: Database, paths: Int) {
        var announced = false
        database.reference(withPath: "ticks").observe(.value) { snapshot in
            if !announced {
                announced = true
                printNow("loaded \(paths)")
            }
            guard snapshot.childSnapshot(forPath: "done").value as? Bool == true else { return }
            printNow("ticks done")
            _exit(0)
        }
    }

    func readKeptOffline(_ database: Database) {
        database.goOffline()
        database.reference(withPath: "kept").observe(.value) { snapshot in
            printNow("kept \(Self.json(snapshot.value))")
            _exit(0)
        }
    }

    /// A snapshot's value as JSON with sorted keys (`null` for nothing).
    static func json(_ value: Any?) -> String {
        let object = value ?? NSNull()
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) else {
            return "\(object)"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
