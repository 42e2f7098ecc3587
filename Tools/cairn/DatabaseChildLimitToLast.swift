import CairnDatabase
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Firebase's documented `queryLimited(toLast:)` example across a restart, on `scores` ordered by value.
///
/// - `tolast DIR`: online, listens to `toLast: 4`; once its `value` has 4 children prints `cached K,K,K,K` and
///   ends with `_exit(0)`.
/// - `tolast DIR --offline`: reopens the cache offline; `toLast: 2`, then `toLast: 6`, each with a `childAdded`
///   and a `value` observer printing `lastN added KEY` and `lastN value K=V,…` (keys sorted); after each
///   registration's events it prints `mark lastN`; then `goOnline()`, and once `toLast: 6` has a `value` with 6
///   children and every event so far has been delivered, it prints `end` and ends with `_exit(0)`.
extension DatabaseChildCommand {
    private static func scores(_ database: Database, last: UInt) -> DatabaseQuery {
        database.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: last)
    }

    func cacheLimitToLast(_ database: Database) {
        Self.scores(database, last: 4).observe(.value) { snapshot in
            let keys = (snapshot.value as? [String: Any])?.keys.sorted() ?? []
            guard keys.count == 4 else { return }
            printNow("cached \(keys.joined(separator: ","))")
            _exit(0)
        }
    }

    func limitToLastAfterRestart(_ database: Database) {
        database.goOffline()
        observe(database, last: 2)
        database.waitForCallbacks()
        printNow("mark last2")
        observe(database, last: 6)
        database.waitForCallbacks()
        printNow("mark last6")
        database.goOnline()
    }

    private func observe(_ database: Database, last: UInt) {
        let query = Self.scores(database, last: last)
        query.observe(.childAdded) { snapshot in printNow("last\(last) added \(snapshot.key)") }
        query.observe(.value) { snapshot in
            let values = snapshot.value as? [String: Any] ?? [:]
            printNow("last\(last) value " + values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: ","))
            guard last == 6, values.count == 6 else { return }
            DispatchQueue.global().async {
                database.waitForCallbacks()
                printNow("end")
                _exit(0)
            }
        }
    }
}
