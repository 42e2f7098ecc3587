import CairnDatabaseCore

/// The listen provider of the spec runs: records which listens are active and, as Firebase's test provider does,
/// rejects a duplicate listen and the stop of a listen that is not running.
final class ScriptedListenProvider: ListenProvider {
    private(set) var active: Set<String> = []
    private(set) var problems: [String] = []

    private static func key(_ query: QuerySpec, _ tag: Int?) -> String {
        query.path.description + "|" + query.identifier + (tag.map { "|\($0)" } ?? "")
    }

    func startListening(_ query: QuerySpec, tag: Int?, hash: @escaping () -> String, onComplete: @escaping (ListenStatus) -> [DatabaseEvent]) -> [DatabaseEvent] {
        let key = Self.key(query, tag)
        if !active.insert(key).inserted { problems.append("duplicate listen \(key)") }
        return []
    }

    func stopListening(_ query: QuerySpec, tag: Int?) {
        let key = Self.key(query, tag)
        if active.remove(key) == nil { problems.append("stopped a listen that was not running: \(key)") }
    }

    /// The problems recorded since the last call.
    func takeProblems() -> [String] {
        defer { problems = [] }
        return problems
    }
}
