import CairnModel
import Foundation
import CairnLocalStore
import Testing

@testable import CairnCore

@Suite("Spec loader: the shared files")
struct SpecLoaderSharedFilesTests {
    /// The shared folder itself (not `$CAIRN_SPEC_DIR`): the counts below are those of `spec-tests.md` §2.
    static let sharedDirectory = SpecLoader.sharedDirectory

    /// Loaded once for the suite.
    static let files = Result { try SpecLoader.loadAll(from: sharedDirectory) }

    /// file → (tests, single-client, memory variant, persistent variant), from the per-file table of §2.
    static let expected: [String: (tests: Int, single: Int, memory: Int, persistent: Int)] = [
        "bundle_spec_test.json": (11, 7, 7, 7),
        "collection_spec_test.json": (2, 2, 2, 2),
        "existence_filter_spec_test.json": (26, 26, 24, 25),
        "garbage_collection_spec_test.json": (5, 5, 5, 4),
        "index_spec_test.json": (2, 0, 0, 0),
        "limbo_spec_test.json": (26, 21, 18, 18),
        "listen_source_spec_test.json": (23, 12, 12, 10),
        "listen_spec_test.json": (66, 38, 35, 36),
        "query_spec_test.json": (4, 3, 3, 3),
        "recovery_spec_test.json": (25, 18, 0, 0),
        "remote_store_spec_test.json": (4, 4, 3, 3),
        "resume_token_spec_test.json": (2, 2, 2, 2),
        "write_spec_test.json": (57, 39, 38, 38),
    ]

    @Test("every shared file parses, with the test counts of spec-tests.md §2")
    func everyFileParsesWithTheDocumentedCounts() throws {
        guard SpecLoader.folderIsPresent(Self.sharedDirectory) else { return }
        let files = try Self.files.get()
        #expect(files.flatMap(\.tests).allSatisfy { $0.problem == nil }, "every step of the shared files is read")
        #expect(files.map(\.name) == Self.expected.keys.sorted())
        let selection = SpecLoader.Selection(files: files, nameFilter: nil)
        for file in files {
            let want = try #require(Self.expected[file.name])
            let single = file.tests.filter { $0.config.numClients == 1 && !$0.tags.contains("multi-client") }
            let memory = file.tests.filter { SpecLoader.skipReason($0, variant: .memory, selection: selection) == nil }
            let persistent = file.tests.filter { SpecLoader.skipReason($0, variant: .persistent, selection: selection) == nil }
            #expect(file.tests.count == want.tests, "\(file.name) tests")
            #expect(single.count == want.single, "\(file.name) single-client tests")
            #expect(memory.count == want.memory, "\(file.name) memory variant")
            #expect(persistent.count == want.persistent, "\(file.name) persistent variant")
        }
        let tests = files.flatMap(\.tests)
        #expect(tests.count == 253)
        #expect(tests.reduce(0) { $0 + $1.steps.count } == 3_098)
    }

    @Test("steps and expectations are typed as the JSON says (counts from spec-tests.md §4 and §5)")
    func stepKindsAndExpectationsAreCounted() throws {
        guard SpecLoader.folderIsPresent(Self.sharedDirectory) else { return }
        let steps = try Self.files.get().flatMap(\.tests).flatMap(\.steps)
        func count(_ predicate: (SpecAction) -> Bool) -> Int { steps.filter { predicate($0.action) }.count }
        #expect(count { if case .watchSnapshot = $0 { true } else { false } } == 445)
        #expect(count { if case .watchFilter = $0 { true } else { false } } == 31)
        #expect(count { if case .userPatch = $0 { true } else { false } } == 16)
        #expect(count { if case .unsupported = $0 { true } else { false } } == 62 + 46 + 2)
        #expect(steps.filter { $0.expectedSnapshotEvents != nil }.count == 727)
        #expect(steps.filter { $0.expectedState?.activeTargets != nil }.count == 706)
        let purposes = steps.compactMap(\.expectedState?.activeTargets).flatMap(\.values).map(\.purpose)
        #expect(purposes.filter { $0 == .limboResolution }.count == 138)
        #expect(purposes.filter { $0 == .existenceFilterMismatch }.count == 23)
        #expect(purposes.filter { $0 == .existenceFilterMismatchBloom }.count == 1)
        let blooms = steps.compactMap { step -> BloomFilterParameters?? in
            if case let .watchFilter(_, _, bloom) = step.action { return bloom }
            return nil
        }
        // 18 steps carry a bloom filter; one of them ("bitmap is invalid") is not base64 and reads as none.
        #expect(blooms.filter { $0 != nil }.count == 17)
    }
}

@Suite("Spec loader: parsing and selection")
struct SpecLoaderParsingTests {
    static func parse(_ text: String) throws -> [SpecTest] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(text.utf8).write(to: dir.appendingPathComponent("sample_spec_test.json"))
        return try #require(try SpecLoader.loadAll(from: dir).first).tests
    }

    static func wrap(_ steps: String, tags: String = "") -> String {
        "{\(entry("T", steps, tags: tags))}"
    }

    /// One test of a spec file, `"name": {...}`, in describe block "D:".
    static func entry(_ name: String, _ steps: String, tags: String = "") -> String {
        """
        "\(name)": {"\(SpecParser.TestKey.describeName)": "D:", "\(SpecParser.TestKey.itName)": "\(name)", "tags": [\(tags)],
               "config": {"numClients": 1, "useEagerGCForMemory": false, "maxConcurrentLimboResolutions": 2},
               "steps": [\(steps)]}
        """
    }

    @Test("queries: filters, order-bys, limit to last, collection groups and document paths")
    func queries() throws {
        let test = try #require(try Self.parse(Self.wrap("""
            {"userListen": {"targetId": 4, "query": {"path": "rooms", "filters": [["a.b", ">=", 2], ["tags", "array-contains", "x"]],
              "orderBys": [["a.b", "desc"]], "limit": 3, "limitType": "LimitToLast"}}},
            {"userListen": {"targetId": 6, "query": {"path": "", "collectionGroup": "cg", "filters": [], "orderBys": []}}},
            {"userUnlisten": [8, {"path": "rooms/r1", "filters": [], "orderBys": []}]}
            """)).first)
        #expect(test.config == SpecConfig(numClients: 1, useEagerGCForMemory: false, maxConcurrentLimboResolutions: 2))
        guard case let .userListen(id, query, _) = test.steps[0].action else { Issue.record("not a listen"); return }
        #expect(id == 4)
        let field = CairnModel.FieldPath(segments: ["a", "b"])
        #expect(query.filters == [.field(FieldFilter(field, .greaterThanOrEqual, .integer(2))),
                                  .field(FieldFilter(CairnModel.FieldPath(segments: ["tags"]), .arrayContains, .string("x")))])
        #expect(query.explicitOrderBy == [OrderBy(field, descending: true)])
        #expect(query.limit == 3 && query.hasLimitToLast)
        guard case let .userListen(_, group, _) = test.steps[1].action else { Issue.record("not a listen"); return }
        #expect(group.collectionGroup == "cg" && group.path == .root)
        guard case let .userUnlisten(_, document) = test.steps[2].action else { Issue.record("not an unlisten"); return }
        #expect(document.isDocumentQuery)
    }

    @Test("writes: set, patch with dotted paths and <DELETE>, delete")
    func writes() throws {
        let test = try #require(try Self.parse(Self.wrap("""
            {"userSet": ["c/d", {"v": 1, "m": {"s": "x", "l": [true, -1]}}]},
            {"userPatch": ["c/d", {"a.c": 2, "gone": "<DELETE>"}]},
            {"userDelete": "c/d"}
            """)).first)
        let key = try DocumentKey(parsing: "c/d")
        guard case let .userSet(set) = test.steps[0].action else { Issue.record("not a set"); return }
        #expect(set == Mutation.set(key, value: ObjectValue([
            "v": .integer(1), "m": .map(ObjectValue(["s": .string("x"), "l": .array([.boolean(true), .integer(-1)])])),
        ])))
        guard case let .userPatch(patch) = test.steps[1].action else { Issue.record("not a patch"); return }
        var value = ObjectValue()
        value.set(.integer(2), at: CairnModel.FieldPath(segments: ["a", "c"]))
        #expect(patch == Mutation.patch(
            key, value: value, mask: FieldMask([CairnModel.FieldPath(segments: ["a", "c"]), CairnModel.FieldPath(segments: ["gone"])]),
            precondition: .exists(true)))
        guard case let .userDelete(delete) = test.steps[2].action else { Issue.record("not a delete"); return }
        #expect(delete == Mutation.delete(key))
    }

    @Test("watch steps: microsecond versions, UTF-8 tokens, base64 bloom filters, documents and tombstones")
    func watchSteps() throws {
        let test = try #require(try Self.parse(Self.wrap("""
            {"watchEntity": {"docs": [{"key": "c/a", "version": 1500001, "createTime": 0, "value": {"v": 1}},
                                      {"key": "c/b", "version": 2000, "createTime": 0, "value": null}], "targets": [2]}},
            {"watchFilter": {"targetIds": [2], "keys": ["c/a"], "bloomFilter": {"bits": {"bitmap": "AQI=", "padding": 3}, "hashCount": 5}}},
            {"watchSnapshot": {"version": 1000, "targetIds": [], "resumeToken": "resume-token-1000"}},
            {"watchRemove": {"targetIds": [2], "cause": {"code": 7}}}
            """)).first)
        let changes = try #require(test.steps[0].action.watchChanges)
        guard case let .documentChange(updated, _, _, found?) = changes[0].change,
            case let .documentChange(_, _, _, tombstone?) = changes[1].change
        else { Issue.record("not document changes"); return }
        #expect(updated == [2])
        #expect(found.version == CairnModel.Timestamp(seconds: 1, nanoseconds: 500_001_000) && found.exists)
        #expect(tombstone.state == .noDocument && tombstone.version == CairnModel.Timestamp(seconds: 0, nanoseconds: 2_000_000))
        guard case let .watchFilter(_, keys, bloom) = test.steps[1].action else { Issue.record("not a filter"); return }
        #expect(keys.count == 1)
        #expect(bloom == BloomFilterParameters(bitmap: [1, 2], padding: 3, hashCount: 5))
        let snapshot = try #require(test.steps[2].action.watchChanges?.first)
        #expect(snapshot.snapshotVersion == CairnModel.Timestamp(seconds: 0, nanoseconds: 1_000_000))
        guard case let .targetChange(.noChange, [], token, nil) = snapshot.change else { Issue.record("not a snapshot"); return }
        #expect(token == Array("resume-token-1000".utf8))
        guard case let .watchRemove(_, cause?) = test.steps[3].action else { Issue.record("not a remove"); return }
        #expect(cause.code == .permissionDenied)
    }

    @Test("a malformed step is kept as its test's problem, naming the test, the step and the field")
    func malformedStepsAreReported() throws {
        let unknown = try #require(try Self.parse(Self.wrap(#"{"watchAck": [2]}, {"watchWobble": true}"#)).first)
        let problem = "\(try #require(unknown.problem))"
        #expect(problem.contains("T.steps[1]") && problem.contains("watchWobble"), "\(problem)")
        #expect(unknown.steps.isEmpty)
        let malformed = try #require(try Self.parse(Self.wrap(#"{"writeAck": {"version": "soon"}}"#)).first)
        let reason = "\(try #require(malformed.problem))"
        #expect(reason.contains("steps[0].writeAck") && reason.contains("integer"), "\(reason)")
        #expect(SpecRunner.run(malformed, variant: .memory)?.contains("steps[0].writeAck") == true)
    }

    @Test("an unknown step kind fails only the test that uses it, and only when that test runs")
    func unknownStepKindFailsOnlyItsTest() throws {
        let wobble = #"{"watchWobble": {"targetIds": [2]}}"#
        let file = "{" + [
            Self.entry("Uses it", #"{"drainQueue": true}, "# + wobble),
            Self.entry("Uses it but is multi-client", wobble, tags: #""multi-client""#),
            Self.entry("Uses it but is not for iOS", wobble, tags: #""no-ios""#),
            Self.entry("Does not use it", #"{"drainQueue": true}"#),
        ].joined(separator: ",\n") + "}"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(file.utf8).write(to: dir.appendingPathComponent("sample_spec_test.json"))
        try Data(Self.wrap(#"{"drainQueue": true}"#).utf8).write(to: dir.appendingPathComponent("other_spec_test.json"))

        let files = try SpecLoader.loadAll(from: dir)
        #expect(files.map(\.name) == ["other_spec_test.json", "sample_spec_test.json"])
        let summary = SpecRunner.runAll(files, selection: SpecLoader.Selection(files: files, nameFilter: nil), known: [])
        #expect(summary.passed == 4, "\(summary)")
        #expect(summary.skipped == 4)
        #expect(summary.failed == 2)
        #expect(summary.unexpectedFailures.count == 2)
        for failure in summary.unexpectedFailures {
            #expect(failure.hasPrefix("sample_spec_test.json :: D: Uses it :: ") && failure.contains("watchWobble"), "\(failure)")
        }
        #expect(summary.unexpectedPasses.isEmpty)
    }

    @Test("selection: exclusive tags win, the name filter matches describe + it names, tags skip per variant")
    func selection() throws {
        let durable = try #require(try Self.parse(Self.wrap(#"{"restart": true}"#, tags: #""durable-persistence""#)).first)
        let selection = SpecLoader.Selection(files: [SpecFile(name: "f", tests: [durable])], nameFilter: "^D: T$")
        #expect(SpecLoader.skipReason(durable, variant: .memory, selection: selection) == "tagged durable-persistence")
        #expect(SpecLoader.skipReason(durable, variant: .persistent, selection: selection) == nil)
        let other = SpecLoader.Selection(files: [], nameFilter: "Listens")
        #expect(SpecLoader.skipReason(durable, variant: .persistent, selection: other) == "not selected")
        var exclusive = durable
        exclusive.tags = ["exclusive"]
        let exclusiveOnly = SpecLoader.Selection(files: [SpecFile(name: "f", tests: [exclusive])], nameFilter: nil)
        #expect(exclusiveOnly.selects(exclusive) && !exclusiveOnly.selects(durable))
    }
}
