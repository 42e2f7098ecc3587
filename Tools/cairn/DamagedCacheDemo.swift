import Cairn
import Dispatch
import Foundation
import CairnLocalStore

/// The part of `cairn demo` that shows what happens to a damaged cache: an app writes twenty notes offline in two
/// sessions (commits in the active segment), terminates, and one byte a third of the way into that segment is
/// flipped. `cairn verify` (``CacheInspector/verify()``) names the damage; opening the cache again through the
/// public API recovers by itself: the damaged directory is kept aside, every intact record is salvaged, and the
/// pending writes that were not in the damaged frame are still pending.
///
/// ```swift
/// let kept = try await DamagedCacheDemo.run(directory: URL(fileURLWithPath: "/tmp/damaged")) { print($0) }
/// // kept == 19: one note was in the damaged frame
/// ```
enum DamagedCacheDemo {
    static let notes = 20

    /// Runs the story in `directory` (created, and removed with its damaged copy at the end); returns how many
    /// notes the recovered cache still holds as pending writes.
    static func run(directory: URL, say: (String) -> Void) async throws -> Int {
        defer { removeWithDamagedCopies(directory) }
        say("A damaged cache: \(notes) notes written offline through the public API, persistent cache in \(directory.path)")
        // Two sessions: every frame records how far its segment was durable when it was written (FORMAT.md §8.3),
        // and the cache syncs behind its writes (group commit), so it is the second session's notes that vouch
        // for the bytes of the first: damage there is corruption, not a torn write to cut.
        func write(_ notes: Range<Int>, in db: Firestore) {
            for i in notes { db.collection("notes").document(String(format: "n%02d", i)).setData(["text": "note \(i)"], completion: nil) }
        }
        let early = try open(directory, app: "cairn-damage-demo-0")
        write(0..<(notes / 2), in: early.db)
        try await early.db.terminate()
        early.app.delete { _ in }
        let first = try open(directory, app: "cairn-damage-demo-1")
        write((notes / 2)..<notes, in: first.db)
        let written = try await first.db.collection("notes").getDocuments(source: .cache)
        say("  \(written.count) notes in the cache, all pending: \(written.documents.allSatisfy(\.metadata.hasPendingWrites))")
        try await first.db.terminate()
        first.app.delete { _ in }

        let segment = try activeSegment(in: directory.path)
        var bytes = try Data(contentsOf: segment)
        let offset = bytes.count / 3
        bytes[offset] ^= 0x08
        try bytes.write(to: segment)
        say("  terminate(); flip one bit at offset \(offset) of \(segment.lastPathComponent), the active segment")

        let verification = try CacheInspector.open(at: directory.path).verifyAndClose()
        say("  cairn verify: \(verification.damage.count) damaged frame(s) (exit 1)")
        for damage in verification.damage { say("    damage: \(damage)") }

        say("  open Firestore on the same directory again (PersistentCacheSettings onDamage: .recover, the default):")
        let second = try open(directory, app: "cairn-damage-demo-2")
        let recovered = try await second.db.collection("notes").getDocuments(source: .cache)
        let pending = recovered.documents.filter(\.metadata.hasPendingWrites).count
        say("  \(recovered.count) of \(notes) notes came back, \(pending) still pending (the damaged frame held the rest)")
        try await second.db.terminate()
        second.app.delete { _ in }
        if let record = try CacheInspector.open(at: directory.path).recoveryAndClose() {
            say("  cairn inspect: this cache was \(record.summary)")
        }
        return pending
    }

    private static func open(_ directory: URL, app name: String) throws -> (app: FirebaseApp, db: Firestore) {
        let db = try openPersistentFirestore(appName: name, project: "cairn-demo", directory: directory, emulator: nil)
        db.disableNetwork(completion: nil)
        return (db.app, db)
    }

    /// The segment file with the highest id: the active one in a cache this small.
    private static func activeSegment(in directory: String) throws -> URL {
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".seg") }.sorted()
        guard let last = segments.last else {
            throw FirestoreErrorCode(.internal, "The demo cache in \(directory) holds no segment file.")
        }
        return URL(fileURLWithPath: directory).appendingPathComponent(last)
    }

    private static func removeWithDamagedCopies(_ directory: URL) {
        let parent = directory.deletingLastPathComponent()
        let prefix = directory.lastPathComponent + ".damaged-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension CacheInspector {
    fileprivate func verifyAndClose() throws -> CacheVerification {
        defer { close() }
        return try verify()
    }

    fileprivate func recoveryAndClose() throws -> CacheRecoveryRecord? {
        defer { close() }
        return try recovery()
    }
}
