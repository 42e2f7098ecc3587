import CairnDatabase
import Foundation

/// `cairn database-child increment --count N`: N `runTransactionBlock` increments of `counter`, one after another
/// (each starts when the previous one completed), while another process does the same. Prints
/// `done N committed` with how many committed; a failed transaction prints `error: ...` and exits with status 1.
extension DatabaseChildCommand {
    func increment(_ database: Database, times: Int) {
        let counter = database.reference(withPath: "counter")
        var committedCount = 0
        func next(_ remaining: Int) {
            guard remaining > 0 else {
                printNow("done \(committedCount) committed")
                return
            }
            counter.runTransactionBlock({ data in
                data.value = (data.value as? Int ?? 0) + 1
                return .success(withValue: data)
            }, andCompletionBlock: { error, committed, _ in
                if let error { Self.fail("transaction \(times - remaining + 1): \(error)") }
                if committed { committedCount += 1 }
                next(remaining - 1)
            })
        }
        next(times)
    }
}
