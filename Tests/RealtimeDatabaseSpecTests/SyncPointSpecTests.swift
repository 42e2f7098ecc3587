import CairnDatabaseCore
import Foundation
import Testing

/// Firebase's sync-point conformance cases (`../shared/rtdb-spec`), each run at the root and under `/foo/bar/baz`
/// through the real sync tree. Prints `rtdb-spec: P passed, F failed, S skipped` as its last line.
@Suite("Realtime Database sync-point spec")
struct SyncPointSpecTests {
    @Test("every sync-point case raises Firebase's events at the root and under a nested path")
    func everyCasePasses() throws {
        let directory = SyncPointSpecLoader.specDirectory
        guard SyncPointSpecLoader.folderIsPresent(directory) else { return }
        let cases = try SyncPointSpecLoader.loadAll(from: directory)
        #expect(!cases.isEmpty, "no cases found in \(directory.path)")
        let bases = [DatabasePath.root, DatabasePath(unvalidated: "foo/bar/baz")]
        var passed = 0
        var failed = 0
        for specCase in cases {
            for base in bases {
                do {
                    try SyncPointSpecRunner(basePath: base).run(specCase)
                    passed += 1
                } catch {
                    failed += 1
                    Issue.record("\(specCase.file) \"\(specCase.name)\" under \(base): \(error)")
                }
            }
        }
        print("rtdb-spec: \(passed) passed, \(failed) failed, 0 skipped")
    }
}
