import CairnModel
import Foundation
import CairnLocalStore

@testable import CairnCore

/// Reads the typed model from parsed JSON, with errors that name the file, test, step and field.
struct SpecParser {
    var context: String

    func fail(_ message: String) -> SpecFormatError { SpecFormatError(context: context, message: message) }

    func at(_ field: String) -> SpecParser { SpecParser(context: "\(context).\(field)") }

    // MARK: Tests and steps

    /// The names a test object gives its describe block and test (the tool that writes the spec files names them
    /// after its `describe`/`it` functions).
    enum TestKey: String {
        case describeName, itName
    }

    /// The test in `json`. A step that cannot be read (an unknown step kind, a malformed field) does not fail
    /// the file: the test keeps the error as its ``SpecTest/problem`` and fails only when it runs, so a test
    /// that is skipped (multi-client, `no-ios`, ...) may use steps this harness does not know.
    func test(_ json: SpecJSON, fileName: String) throws(SpecFormatError) -> SpecTest {
        let config = try require(json["config"], "config")
        let stepsJSON = try array(try require(json["steps"], "steps"))
        var steps: [SpecStep] = []
        var problem: SpecFormatError?
        do throws(SpecFormatError) {
            for (index, step) in stepsJSON.enumerated() { steps.append(try at("steps[\(index)]").step(step)) }
        } catch {
            problem = error
            steps = []
        }
        return SpecTest(
            fileName: fileName,
            describeName: try string(try require(json[TestKey.describeName.rawValue], TestKey.describeName.rawValue)),
            itName: try string(try require(json[TestKey.itName.rawValue], TestKey.itName.rawValue)),
            comment: json["comment"]?.stringValue,
            tags: Set(try array(json["tags"] ?? .array([])).map { tag throws(SpecFormatError) in try string(tag) }),
            config: SpecConfig(
                numClients: Int(try int(try require(config["numClients"], "config.numClients"))),
                useEagerGCForMemory: try bool(try require(config["useEagerGCForMemory"], "config.useEagerGCForMemory")),
                maxConcurrentLimboResolutions: try config["maxConcurrentLimboResolutions"].map { v throws(SpecFormatError) in Int(try int(v)) }),
            steps: steps,
            problem: problem)
    }

    static let expectationKeys: Set<String> = [
        "expectedSnapshotEvents", "expectedState", "expectedSnapshotsInSyncEvents", "expectedWaitForPendingWritesEvents",
        "clientIndex",
    ]

    func step(_ json: SpecJSON) throws(SpecFormatError) -> SpecStep {
        guard let fields = json.objectFields else { throw fail("a step must be an object") }
        let actions = fields.keys.filter { !Self.expectationKeys.contains($0) }
        guard actions.count == 1, let kind = actions.first else {
            throw fail("a step must have exactly one action key, found \(actions.sorted())")
        }
        return SpecStep(
            action: try at(kind).action(kind, fields[kind]!),
            clientIndex: try fields["clientIndex"].map { v throws(SpecFormatError) in Int(try int(v)) },
            expectedSnapshotEvents: try fields["expectedSnapshotEvents"].map { v throws(SpecFormatError) in
                try at("expectedSnapshotEvents").array(v).map { e throws(SpecFormatError) in try at("expectedSnapshotEvents").snapshotEvent(e) }
            },
            expectedState: try fields["expectedState"].map { v throws(SpecFormatError) in try at("expectedState").expectedState(v) },
            expectedSnapshotsInSyncEvents: Int(try fields["expectedSnapshotsInSyncEvents"].map { v throws(SpecFormatError) in try int(v) } ?? 0),
            expectedWaitForPendingWritesEvents: Int(try fields["expectedWaitForPendingWritesEvents"].map { v throws(SpecFormatError) in try int(v) } ?? 0))
    }

    func action(_ kind: String, _ v: SpecJSON) throws(SpecFormatError) -> SpecAction {
        switch kind {
        case "userListen":
            var options = SpecListenOptions()
            if let o = v["options"] {
                options.sourceIsCache = o["source"]?.stringValue == "cache"
                options.includeMetadataChanges = o["includeMetadataChanges"]?.boolValue
                options.waitForSyncWhenOnline = o["waitForSyncWhenOnline"]?.boolValue
            }
            return .userListen(
                targetID: try targetID(try require(v["targetId"], "targetId")), query: try at("query").query(try require(v["query"], "query")),
                options: options)
        case "userUnlisten":
            let items = try array(v)
            guard items.count == 2 else { throw fail("userUnlisten must be [targetId, query]") }
            return .userUnlisten(targetID: try targetID(items[0]), query: try query(items[1]))
        case "userSet":
            let (key, value) = try keyAndValue(v)
            return .userSet(Mutation.set(key, value: try objectValue(value)))
        case "userPatch":
            return .userPatch(try patch(v))
        case "userDelete":
            return .userDelete(Mutation.delete(try documentKey(v)))
        case "watchAck":
            return .watchAck(targetIDs: try targetIDs(v))
        case "watchCurrent":
            let items = try array(v)
            guard items.count == 2 else { throw fail("watchCurrent must be [[targetIds], resumeToken]") }
            return .watchCurrent(targetIDs: try targetIDs(items[0]), resumeToken: Array(try string(items[1]).utf8))
        case "watchReset":
            return .watchReset(targetIDs: try targetIDs(v))
        case "watchRemove":
            return .watchRemove(
                targetIDs: try targetIDs(try require(v["targetIds"], "targetIds")),
                cause: try v["cause"].map { c throws(SpecFormatError) in try at("cause").error(c) })
        case "watchEntity":
            return .watchEntity(try watchEntity(v))
        case "watchFilter":
            return try watchFilter(v)
        case "watchSnapshot":
            return .watchSnapshot(
                version: try version(try require(v["version"], "version")),
                targetIDs: try targetIDs(v["targetIds"] ?? .array([])),
                resumeToken: Array((v["resumeToken"]?.stringValue ?? "").utf8))
        case "watchStreamClose":
            return .watchStreamClose(
                error: try at("error").error(try require(v["error"], "error")),
                runBackoffTimer: v["runBackoffTimer"]?.boolValue ?? true)
        case "writeAck":
            return .writeAck(version: try version(try require(v["version"], "version")), keepInQueue: v["keepInQueue"]?.boolValue ?? false)
        case "failWrite":
            return .failWrite(error: try at("error").error(try require(v["error"], "error")), keepInQueue: v["keepInQueue"]?.boolValue ?? false)
        case "enableNetwork":
            return .enableNetwork(try bool(v))
        case "runTimer":
            let name = try string(v)
            if name == "all" { return .runTimer(.all) }
            guard let timer = TimerID(rawValue: name) else { throw fail("unknown timer id \"\(name)\"") }
            return .runTimer(.timer(timer))
        case "changeUser":
            return .changeUser(v == .null ? nil : try string(v))
        case "restart": return .restart
        case "triggerLruGC": return .triggerLruGC(thresholdBytes: try int(v))
        case "loadBundle": return .loadBundle(try string(v))
        case "waitForPendingWrites": return .waitForPendingWrites
        case "addSnapshotsInSyncListener": return .addSnapshotsInSyncListener
        case "removeSnapshotsInSyncListener": return .removeSnapshotsInSyncListener
        case "drainQueue": return .drainQueue
        case "shutdown": return .shutdown
        case "failDatabase", "applyClientState", "setIndexConfiguration": return .unsupported(kind: kind)
        default: throw fail("unknown step kind \"\(kind)\"")
        }
    }

    private func patch(_ v: SpecJSON) throws(SpecFormatError) -> Mutation {
        let (key, value) = try keyAndValue(v)
        guard let fields = value.objectFields else { throw fail("a patch value must be an object") }
        var object = ObjectValue()
        var mask: [CairnModel.FieldPath] = []
        for (name, fieldValue) in fields.sorted(by: { $0.key < $1.key }) {
            let path = try fieldPath(name)
            mask.append(path)
            if fieldValue != .string("<DELETE>") { object.set(try at(name).value(fieldValue), at: path) }
        }
        return Mutation.patch(key, value: object, mask: FieldMask(mask), precondition: .exists(true))
    }

    private func keyAndValue(_ v: SpecJSON) throws(SpecFormatError) -> (DocumentKey, SpecJSON) {
        let items = try array(v)
        guard items.count == 2 else { throw fail("a write must be [\"path\", {fields}]") }
        return (try documentKey(items[0]), items[1])
    }

    private func watchEntity(_ v: SpecJSON) throws(SpecFormatError) -> SpecWatchEntity {
        var documents: [Document] = []
        if let docs = v["docs"] {
            for (i, doc) in try array(docs).enumerated() { documents.append(try at("docs[\(i)]").document(doc)) }
        }
        if let doc = v["doc"] { documents.append(try at("doc").document(doc)) }
        let key = try v["key"].map { k throws(SpecFormatError) in try documentKey(k) }
        guard !documents.isEmpty || key != nil || v["docs"] != nil else { throw fail("watchEntity needs docs, doc or key") }
        return SpecWatchEntity(
            documents: documents, key: key, targets: try targetIDs(v["targets"] ?? .array([])),
            removedTargets: try targetIDs(v["removedTargets"] ?? .array([])))
    }

    private func watchFilter(_ v: SpecJSON) throws(SpecFormatError) -> SpecAction {
        let ids = try targetIDs(try require(v["targetIds"], "targetIds"))
        guard ids.count == 1 else { throw fail("watchFilter must name exactly one target, found \(ids)") }
        let keys = try array(try require(v["keys"], "keys")).map { k throws(SpecFormatError) in try documentKey(k) }
        var bloom: BloomFilterParameters?
        if let b = v["bloomFilter"] {
            let bits = try at("bloomFilter").require(b["bits"], "bits")
            let base64 = try string(try at("bloomFilter.bits").require(bits["bitmap"], "bitmap"))
            // An undecodable bitmap cannot be applied: the client falls back to a full re-query, as with none.
            if let data = Data(base64Encoded: base64) {
                bloom = BloomFilterParameters(
                    bitmap: Array(data), padding: Int(bits["padding"]?.intValue ?? 0), hashCount: Int(b["hashCount"]?.intValue ?? 0))
            }
        }
        return .watchFilter(targetIDs: ids, keys: keys, bloomFilter: bloom)
    }

    // MARK: Expectations

    func snapshotEvent(_ v: SpecJSON) throws(SpecFormatError) -> SpecSnapshotEvent {
        func documents(_ name: String) throws(SpecFormatError) -> [Document] {
            guard let list = v[name] else { return [] }
            var result: [Document] = []
            for (i, d) in try array(list).enumerated() { result.append(try at("\(name)[\(i)]").document(d)) }
            return result
        }
        return SpecSnapshotEvent(
            query: try at("query").query(try require(v["query"], "query")),
            errorCode: Int(v["errorCode"]?.intValue ?? 0),
            fromCache: v["fromCache"]?.boolValue ?? false,
            hasPendingWrites: v["hasPendingWrites"]?.boolValue ?? false,
            added: try documents("added"), removed: try documents("removed"), modified: try documents("modified"),
            metadata: try documents("metadata"))
    }

    func expectedState(_ v: SpecJSON) throws(SpecFormatError) -> SpecExpectedState {
        var state = SpecExpectedState()
        if let targets = v["activeTargets"] {
            guard let fields = targets.objectFields else { throw fail("activeTargets must be an object") }
            var result: [Int32: SpecActiveTarget] = [:]
            for (id, target) in fields {
                guard let targetID = Int32(id) else { throw fail("activeTargets key \"\(id)\" is not a target id") }
                result[targetID] = try at("activeTargets.\(id)").activeTarget(target)
            }
            state.activeTargets = result
        }
        state.activeLimboDocs = try v["activeLimboDocs"].map { l throws(SpecFormatError) in Set(try documentKeys(l)) }
        state.enqueuedLimboDocs = try v["enqueuedLimboDocs"].map { l throws(SpecFormatError) in Set(try documentKeys(l)) }
        state.userCallbacks = try v["userCallbacks"].map { c throws(SpecFormatError) in
            SpecUserCallbacks(
                acknowledgedDocs: try documentKeys(c["acknowledgedDocs"] ?? .array([])),
                rejectedDocs: try documentKeys(c["rejectedDocs"] ?? .array([])))
        }
        state.numOutstandingWrites = v["numOutstandingWrites"]?.intValue.map(Int.init)
        state.writeStreamRequestCount = v["writeStreamRequestCount"]?.intValue.map(Int.init)
        state.watchStreamRequestCount = v["watchStreamRequestCount"]?.intValue.map(Int.init)
        state.isPrimary = v["isPrimary"]?.boolValue
        return state
    }

    static let purposes: [String: TargetData.Purpose] = [
        "TargetPurposeListen": .listen,
        "TargetPurposeLimboResolution": .limboResolution,
        "TargetPurposeExistenceFilterMismatch": .existenceFilterMismatch,
        "TargetPurposeExistenceFilterMismatchBloom": .existenceFilterMismatchBloom,
    ]

    private func activeTarget(_ v: SpecJSON) throws(SpecFormatError) -> SpecActiveTarget {
        var queries: [CairnModel.Query] = []
        for (i, q) in try array(try require(v["queries"], "queries")).enumerated() { queries.append(try at("queries[\(i)]").query(q)) }
        guard !queries.isEmpty else { throw fail("an active target needs at least one query") }
        var purpose = TargetData.Purpose.listen
        if let name = v["targetPurpose"] {
            guard let known = Self.purposes[try string(name)] else { throw fail("unknown target purpose \(name)") }
            purpose = known
        }
        return SpecActiveTarget(
            queries: queries, resumeToken: Array((v["resumeToken"]?.stringValue ?? "").utf8), purpose: purpose,
            readTime: try v["readTime"].map { r throws(SpecFormatError) in try version(r) },
            expectedCount: v["expectedCount"]?.intValue.map(Int.init))
    }

    // MARK: Scalars

    func require(_ v: SpecJSON?, _ name: String) throws(SpecFormatError) -> SpecJSON {
        guard let v else { throw fail("missing \"\(name)\"") }
        return v
    }

    func array(_ v: SpecJSON) throws(SpecFormatError) -> [SpecJSON] {
        guard let items = v.arrayValue else { throw fail("expected an array, found \(v)") }
        return items
    }

    func string(_ v: SpecJSON) throws(SpecFormatError) -> String {
        guard let s = v.stringValue else { throw fail("expected a string, found \(v)") }
        return s
    }

    func int(_ v: SpecJSON) throws(SpecFormatError) -> Int64 {
        guard let i = v.intValue else { throw fail("expected an integer, found \(v)") }
        return i
    }

    func bool(_ v: SpecJSON) throws(SpecFormatError) -> Bool {
        guard let b = v.boolValue else { throw fail("expected a boolean, found \(v)") }
        return b
    }

    func targetID(_ v: SpecJSON) throws(SpecFormatError) -> Int32 {
        guard let id = Int32(exactly: try int(v)) else { throw fail("target id \(v) out of range") }
        return id
    }

    func targetIDs(_ v: SpecJSON) throws(SpecFormatError) -> [Int32] {
        try array(v).map { id throws(SpecFormatError) in try targetID(id) }
    }

    /// Microseconds → timestamp (§6).
    func version(_ v: SpecJSON) throws(SpecFormatError) -> CairnModel.Timestamp {
        let micros = try int(v)
        guard micros >= 0 else { throw fail("negative version \(micros)") }
        return CairnModel.Timestamp(seconds: micros / 1_000_000, nanoseconds: Int32(micros % 1_000_000) * 1000)
    }

    func error(_ v: SpecJSON) throws(SpecFormatError) -> FirestoreErrorCode {
        let raw = try int(try require(v["code"], "code"))
        guard let code = FirestoreErrorCode.Code(rawValue: Int(raw)) else { throw fail("unknown error code \(raw)") }
        return FirestoreErrorCode(code, v["message"]?.stringValue ?? "spec-test error \(raw)")
    }

    func documentKey(_ v: SpecJSON) throws(SpecFormatError) -> DocumentKey {
        let path = try string(v)
        do {
            return try DocumentKey(parsing: path)
        } catch {
            throw fail("invalid document key \"\(path)\": \(error)")
        }
    }

    func documentKeys(_ v: SpecJSON) throws(SpecFormatError) -> [DocumentKey] {
        try array(v).map { k throws(SpecFormatError) in try documentKey(k) }
    }

    func fieldPath(_ name: String) throws(SpecFormatError) -> CairnModel.FieldPath {
        do {
            return try CairnModel.FieldPath(parsingDotted: name)
        } catch {
            throw fail("invalid field path \"\(name)\": \(error)")
        }
    }
}
