import CairnCoreTestSupport
import CairnModel
@testable import CairnCore

/// Small builders for the core's unit tests: documents and queries over the `rooms` collection.
enum CoreFixtures {
    static func key(_ path: String) -> DocumentKey {
        DocumentKey(path: ResourcePath(segments: path.split(separator: "/").map(String.init)))
    }

    static func document(
        _ path: String, version: Int64 = 1, _ fields: [String: Value] = [:], local: Bool = false, committed: Bool = false
    ) -> Document {
        Document(
            key: key(path), state: .found, version: CairnModel.Timestamp(seconds: version, nanoseconds: 0),
            data: ObjectValue(fields), hasLocalMutations: local, hasCommittedMutations: committed)
    }

    static let rooms = CairnModel.Query(path: ResourcePath(segments: ["rooms"]))

    /// `rooms` ordered by `n`, limited to the first (or last) `limit` documents.
    static func roomsByN(limit: Int? = nil, type: CairnModel.Query.LimitType = .first) -> CairnModel.Query {
        CairnModel.Query(
            path: ResourcePath(segments: ["rooms"]), collectionGroup: nil, filters: [],
            explicitOrderBy: [OrderBy(CairnModel.FieldPath(segments: ["n"]))], limit: limit, limitType: type, startAt: nil,
            endAt: nil)
    }

    static func keyed(_ documents: Document...) -> [DocumentKey: Document?] {
        var keyed: [DocumentKey: Document?] = [:]
        for document in documents { keyed.updateValue(document, forKey: document.key) }
        return keyed
    }

    static func deleted(_ path: String) -> [DocumentKey: Document?] {
        [key(path): nil]
    }
}
