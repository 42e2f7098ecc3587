import ArgumentParser
import Cairn
import CairnTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `cairn sync-child`: one side of a restart while offline, in a process of its own (used by the emulator tests).
///
/// `write` opens Firestore on a persistent cache pointed at the emulator, disables the network, makes `count`
/// writes in order, waits until a listener shows them all as pending (each local write is committed to the cache
/// before its event), prints `written N pending` and ends the process at once with `_exit(0)`: no terminate, no
/// flush, nothing that depends on a clean shutdown. `sync` opens the same cache with the network on, waits for
/// the pending writes, prints `synced`, waits until a listener shows every document acknowledged and from the
/// server, and prints `settled N`.
///
/// Write `i` is one batch: `items/w<i>` (three digits) set to `{i: i}`, and `meta/counter` merged with
/// `{count: increment(1), last: i, trail: arrayUnion(["w<i>"])}` — the counter shows a write applied twice, the
/// trail the order in which the server applied them.
///
///     cairn sync-child write /tmp/cache --emulator 127.0.0.1:8080 --project demo --first 1 --count 5
///     cairn sync-child sync /tmp/cache --emulator 127.0.0.1:8080 --project demo
struct SyncChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-child",
        abstract: "Write offline and exit abruptly, or reopen the cache and sync (used by the emulator tests).",
        shouldDisplay: false)

    enum Phase: String, ExpressibleByArgument, CaseIterable {
        case write, sync
    }

    @Argument(help: "write: offline writes, then exit abruptly; sync: reopen online and wait for the server.")
    var phase: Phase

    @Argument(help: "The persistent cache directory.")
    var directory: String

    @Option(help: "The Firestore emulator, host:port.")
    var emulator: EmulatorAddress

    @Option(help: "The project id.")
    var project: String

    @Option(help: "The number of the first write (write phase).")
    var first: Int = 1

    @Option(help: "How many writes to make (write phase).")
    var count: Int = 5

    func validate() throws {
        guard first >= 0, count >= 1, first + count <= 1000 else {
            throw ValidationError("--first and --count must number writes between 0 and 999, at least one")
        }
    }

    /// The id of write `i`'s document.
    static func documentID(_ i: Int) -> String { String(format: "w%03d", i) }

    func run() throws {
        let directory = URL(fileURLWithPath: self.directory)
        let (project, emulator, first, count) = (self.project, self.emulator, self.first, self.count)
        switch phase {
        case .write:
            try runBlocking {
                try await Self.writeOffline(directory, project: project, emulator: emulator, writes: first..<first + count)
            }
            printNow("written \(count) pending")
            _exit(0)
        case .sync:
            let settled = try runBlocking { try await Self.sync(directory, project: project, emulator: emulator) }
            printNow("settled \(settled)")
        }
    }

    private static func writeOffline(
        _ directory: URL, project: String, emulator: EmulatorAddress, writes: Range<Int>
    ) async throws {
        let db = try openPersistentFirestore(appName: "sync-child", project: project, directory: directory, emulator: emulator)
        try await db.disableNetwork()
        let items = db.collection("items")
        var events = items.snapshots(includeMetadataChanges: true).makeAsyncIterator()
        for i in writes {
            let batch = db.batch()
            batch.setData(["i": i], forDocument: items.document(documentID(i)))
            batch.setData(
                ["count": FieldValue.increment(Int64(1)), "last": i, "trail": FieldValue.arrayUnion([documentID(i)])],
                forDocument: db.document("meta/counter"), merge: true)
            batch.commit(completion: nil)
        }
        let expected = Set(writes.map(documentID))
        while let snapshot = try await events.next() {
            let pending = Set(snapshot.documents.filter(\.metadata.hasPendingWrites).map(\.documentID))
            if pending.isSuperset(of: expected) { return }
        }
        throw FirestoreErrorCode(.internal, "The listener on items ended before it showed the \(writes.count) writes.")
    }

    /// Reopens the cache online; returns how many documents `items` holds once everything settled.
    private static func sync(_ directory: URL, project: String, emulator: EmulatorAddress) async throws -> Int {
        let db = try openPersistentFirestore(appName: "sync-child", project: project, directory: directory, emulator: emulator)
        var events = db.collection("items").snapshots(includeMetadataChanges: true).makeAsyncIterator()
        try await db.waitForPendingWrites()
        printNow("synced")
        while let snapshot = try await events.next() {
            if !snapshot.metadata.hasPendingWrites && !snapshot.metadata.isFromCache {
                try await db.terminate()
                return snapshot.count
            }
        }
        throw FirestoreErrorCode(.internal, "The listener on items ended before its metadata settled.")
    }
}
