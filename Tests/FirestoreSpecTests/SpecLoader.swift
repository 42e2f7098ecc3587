import Foundation
import Synchronization
import Testing

/// One spec file, parsed: its tests sorted by name.
struct SpecFile: Sendable {
    var name: String
    var tests: [SpecTest]
}

/// The two configurations every applicable test runs in (issue 4).
enum SpecVariant: String, Sendable, CaseIterable {
    /// The in-memory cache; eager or LRU GC as `config.useEagerGCForMemory` says. Skips `durable-persistence`.
    case memory
    /// The segment-log cache on disk. Skips `eager-gc`.
    case persistent
}

/// Finds and parses the Firestore spec tests and decides which of them run (`spec-tests.md` §7.1).
///
/// ```swift
/// let files = try SpecLoader.loadAll()                         // $CAIRN_SPEC_DIR or ../shared/firestore-spec
/// for test in files.flatMap(\.tests) {
///     if let reason = SpecLoader.skipReason(test, variant: .memory, selection: selection) { continue }
///     ...
/// }
/// ```
enum SpecLoader {
    /// The package root: this file is `Tests/FirestoreSpecTests/SpecLoader.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$CAIRN_SPEC_DIR` when set, else `../shared/firestore-spec` relative to the package root.
    static var specDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["CAIRN_SPEC_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/firestore-spec", isDirectory: true)
    }

    /// The folder the shared-file suite checks the documented counts on: `../shared/firestore-spec` itself.
    static let sharedDirectory = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/firestore-spec", isDirectory: true)

    /// Whether one missing-folder line was printed already.
    private static let reportedMissing = Mutex(false)

    /// True when `directory` exists. Otherwise a test that needs it skips: outside CI, one line is printed for
    /// the whole run (a plain clone has no `../shared` beside it); under `CI=true` the calling test fails.
    static func folderIsPresent(_ directory: URL, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return true
        }
        let message = "the spec-test folder \(directory.path) does not exist (Firebase's spec JSON files, "
            + "../shared/firestore-spec beside the checkout; CAIRN_SPEC_DIR points the spec run elsewhere)"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("\(message)", sourceLocation: sourceLocation)
        } else if !reportedMissing.withLock({ reported in defer { reported = true }; return reported }) {
            print("firestore-spec: skipped the tests that read the spec files, \(message)")
        }
        return false
    }

    /// Every `*.json` file of `directory`, parsed, in file-name order.
    ///
    /// - Throws: ``SpecFormatError`` naming the file (and test and field) that cannot be read or parsed.
    static func loadAll(from directory: URL = specDirectory) throws -> [SpecFile] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw SpecFormatError(
                context: directory.path,
                message: "cannot list the spec-test folder (\(error)); set CAIRN_SPEC_DIR to the folder of the JSON files")
        }
        return try names.filter { $0.hasSuffix(".json") }.sorted().map { name in
            try load(directory.appendingPathComponent(name))
        }
    }

    /// One file, parsed.
    static func load(_ url: URL) throws -> SpecFile {
        let name = url.lastPathComponent
        let json: SpecJSON
        do {
            json = try SpecJSON(parsing: try Data(contentsOf: url))
        } catch {
            throw SpecFormatError(context: name, message: "not readable as JSON: \(error)")
        }
        guard let tests = json.objectFields else { throw SpecFormatError(context: name, message: "the top level must be an object of tests") }
        var parsed: [SpecTest] = []
        for key in tests.keys.sorted() {
            let test = try SpecParser(context: "\(name): \(key)").test(tests[key]!, fileName: name)
            guard test.itName == key else {
                throw SpecFormatError(context: "\(name): \(key)", message: "itName \"\(test.itName)\" differs from the key")
            }
            parsed.append(test)
        }
        return SpecFile(name: name, tests: parsed)
    }

    /// Which tests are selected before tags are considered: those tagged `exclusive` if any, else those whose
    /// full name matches `CAIRN_SPEC_FILTER` (a regular expression, or a plain substring when it is not one).
    struct Selection: Sendable {
        var exclusiveOnly: Bool
        var nameFilter: String?

        init(files: [SpecFile], nameFilter: String? = ProcessInfo.processInfo.environment["CAIRN_SPEC_FILTER"]) {
            exclusiveOnly = files.contains { $0.tests.contains { $0.tags.contains("exclusive") } }
            self.nameFilter = nameFilter.flatMap { $0.isEmpty ? nil : $0 }
        }

        func selects(_ test: SpecTest) -> Bool {
            if exclusiveOnly { return test.tags.contains("exclusive") }
            guard let nameFilter else { return true }
            if let regex = try? Regex(nameFilter) { return test.fullName.contains(regex) }
            return test.fullName.contains(nameFilter)
        }
    }

    /// Tags that skip a test in every variant: web multi-tab, not run on iOS, benchmarks.
    static let alwaysSkippedTags: Set<String> = ["multi-client", "no-ios", "benchmark"]

    /// Why `test` does not run in `variant`, or `nil` when it runs.
    static func skipReason(_ test: SpecTest, variant: SpecVariant, selection: Selection) -> String? {
        if !selection.selects(test) { return "not selected" }
        if let tag = alwaysSkippedTags.intersection(test.tags).sorted().first { return "tagged \(tag)" }
        if test.config.numClients != 1 { return "\(test.config.numClients) clients" }
        switch variant {
        case .memory where test.tags.contains("durable-persistence"): return "tagged durable-persistence"
        case .persistent where test.tags.contains("eager-gc"): return "tagged eager-gc"
        default: return nil
        }
    }
}
