import CairnDatabaseCore

/// A step of a case that did not do what the spec says.
struct SpecFailure: Error, CustomStringConvertible {
    var step: Int
    var message: String
    var description: String { "step \(step): \(message)" }
}

/// A spec listener: the registration the sync tree holds, remembering the listen step that created it (its path and
/// query identifier), which is how Firebase's driver checks where an event went.
final class SpecRegistration: EventRegistration {
    let listenPath: DatabasePath
    let queryIdentifier: String

    init(listenPath: DatabasePath, queryIdentifier: String) {
        self.listenPath = listenPath
        self.queryIdentifier = queryIdentifier
    }

    func responds(to type: EventType) -> Bool { true }
    func matches(_ other: any EventRegistration) -> Bool { other === self }
    var hasAnyCallback: Bool { true }
    var wantsCancelEvents: Bool { false }
}

/// Runs one sync-point case through a real ``SyncTree`` as Firebase's driver (`syncpoint-util.ts`,
/// `FSyncPointTests.m`) does: every path under `basePath`; write ids from 0; listen and unlisten events matched
/// exactly and in order; other steps matched per path group with the per-registration order rule.
struct SyncPointSpecRunner {
    let basePath: DatabasePath

    func run(_ specCase: SyncPointCase) throws {
        let provider = ScriptedListenProvider()
        let tree = SyncTree(listenProvider: provider)
        var registrations: [String: SpecRegistration] = [:]
        var nextWriteId = 0
        for (number, step) in specCase.steps.enumerated() {
            func fail(_ message: String) -> SpecFailure { SpecFailure(step: number, message: message) }
            guard case .string(let type)? = step["type"] else { throw fail("a step needs a string \"type\"") }
            let path = try testPath(step["path"], step: number)
            let expected = try parseEvents(step["events"], step: number)
            let matcher = EventMatcher(basePath: basePath, step: number)
            switch type {
            case "listen", "unlisten":
                let query = QuerySpec(path: path, params: try SpecQueryParams.parse(step["params"], step: number))
                let callbackId = step["callbackId"].map { Node.canonicalJSON($0) }
                let events: [DatabaseEvent]
                if type == "listen" {
                    let registration = callbackId.flatMap { registrations[$0] }
                        ?? SpecRegistration(listenPath: path, queryIdentifier: query.identifier)
                    if let callbackId { registrations[callbackId] = registration }
                    events = tree.addEventRegistration(registration, for: query)
                } else {
                    guard let callbackId, let registration = registrations[callbackId] else {
                        throw fail("unlisten without the callbackId of an earlier listen")
                    }
                    events = tree.removeEventRegistration(registration, for: query)
                }
                try matcher.exactMatch(expected, events)
            case "serverUpdate":
                let data = try node(step["data"], step: number)
                if case .int(let tag)? = step["tag"] {
                    try matcher.setMatch(expected, tree.applyTaggedQueryOverwrite(path, data, tag: Int(tag)))
                } else {
                    try matcher.setMatch(expected, tree.applyServerOverwrite(path, data))
                }
            case "serverMerge":
                let children = try mergeChildren(step["data"], step: number)
                if case .int(let tag)? = step["tag"] {
                    try matcher.setMatch(expected, tree.applyTaggedQueryMerge(path, children, tag: Int(tag)))
                } else {
                    try matcher.setMatch(expected, tree.applyServerMerge(path, children))
                }
            case "set":
                var visible = true
                if case .bool(let flag)? = step["visible"] { visible = flag }
                let events = tree.applyUserOverwrite(path, try node(step["data"], step: number), writeId: nextWriteId, visible: visible)
                nextWriteId += 1
                try matcher.setMatch(expected, events)
            case "update":
                let events = tree.applyUserMerge(path, try mergeChildren(step["data"], step: number), writeId: nextWriteId)
                nextWriteId += 1
                try matcher.setMatch(expected, events)
            case "ackUserWrite":
                guard case .int(let writeId)? = step["writeId"] else { throw fail("ackUserWrite needs an integer writeId") }
                var revert = false
                if case .bool(let flag)? = step["revert"] { revert = flag }
                try matcher.setMatch(expected, tree.ackUserWrite(Int(writeId), revert: revert))
            case "suppressWarning":
                break
            default:
                throw fail("unknown step type \(type)")
            }
            if let problem = provider.takeProblems().first { throw fail(problem) }
        }
    }

    private func testPath(_ value: JSONValue?, step: Int) throws -> DatabasePath {
        guard let value else { return basePath }
        guard case .string(let string) = value else { throw SpecFailure(step: step, message: "\"path\" must be a string") }
        return basePath.child(DatabasePath(unvalidated: string))
    }

    private func node(_ value: JSONValue?, step: Int) throws -> Node {
        do {
            return try Node(json: value ?? .null)
        } catch {
            throw SpecFailure(step: step, message: "data not importable: \(error)")
        }
    }

    private func mergeChildren(_ value: JSONValue?, step: Int) throws -> [(DatabasePath, Node)] {
        guard let members = value?.objectValue else { throw SpecFailure(step: step, message: "merge data must be an object") }
        return try members.keys.sorted { KeyOrder.compare($0, $1) < 0 }.map { key in
            (DatabasePath(unvalidated: key), try node(members[key], step: step))
        }
    }

    private func parseEvents(_ value: JSONValue?, step: Int) throws -> [ExpectedEvent] {
        guard let value else { return [] }
        guard case .array(let events) = value else { throw SpecFailure(step: step, message: "\"events\" must be an array") }
        return try events.map { event in
            guard let object = event.objectValue, case .string(let typeName)? = object["type"],
                  let type = EventType(rawValue: typeName) else {
                throw SpecFailure(step: step, message: "an event needs a known \"type\"")
            }
            var path = basePath
            if case .string(let relative)? = object["path"] { path = basePath.child(DatabasePath(unvalidated: relative)) }
            var name: String?
            if case .string(let string)? = object["name"] { name = string }
            var prevName: String?
            if case .string(let string)? = object["prevName"] { prevName = string }
            let data = try node(object["data"], step: step)
            return ExpectedEvent(type: type, path: path, name: name, prevName: prevName, hash: data.hash)
        }
    }
}
