import ArgumentParser
import CairnDatabaseCore
import CairnLocalStore

/// `cairn verify DIR`: every frame and the cache's invariants, from ``CacheInspector/verify()``.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every frame and every structural invariant of a cache.",
        discussion: """
            Reads every byte of every segment (checksums, decompression, record structure, the manifest's \
            counts), then decodes every event and replays the cache. Each damaged frame is reported with its \
            segment, file, offset and length, the problem, how many records (which LSNs) it held, and the last \
            intact record before it. An unfinished write at the end of the log (a crash during a write that was \
            never acknowledged) is a note, not damage.
            For a Realtime Database cache: every frame, then every record decoded (counts by kind) and the views \
            replayed.
            Opens the directory read-only and changes nothing.
            Exit status: 0 clean, 1 damage or a broken invariant found, 2 usage error, not a cache, locked, or an \
            I/O error.

            Example:
              cairn verify cache || echo "the cache is damaged: delete it and the app rebuilds it"
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    func run() throws {
        if DatabaseCacheDetection.isDatabaseCache(at: directory) {
            let verification = try withDatabaseInspector(directory) { (inspector) throws(PersistenceError) in try inspector.verify() }
            print(DatabaseCacheText.verify(verification))
            guard verification.isClean else {
                printError("cairn: corruption: \(verification.damage.count) damaged frame(s), \(verification.problems.count) problem(s)")
                throw ExitCode(1)
            }
            print("clean")
            return
        }
        let verification = try withInspector(directory) { try $0.verify() }
        print("segments: \(verification.segments)  frames: \(verification.frames)  records: \(verification.records)")
        for damage in verification.damage { print("damage: \(damage)") }
        for problem in verification.problems { print("problem: \(problem)") }
        for note in verification.notes { print("note: \(note)") }
        guard verification.isClean else {
            printError("cairn: corruption: \(verification.damage.count) damaged frame(s), \(verification.problems.count) problem(s)")
            throw ExitCode(1)
        }
        print("clean")
    }
}
