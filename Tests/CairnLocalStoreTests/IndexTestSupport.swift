import CairnModel
import Foundation
import Testing
@testable import CairnLocalStore

/// Random documents, writes, index configurations and queries for the field-index and query-engine suites,
/// and the oracle they compare the engine with: the local view of every document the test ever wrote,
/// matched, ordered and limited by `Query.results(from:)`.
protocol IndexTesting {}

extension IndexTesting {
    var database: DatabaseID { DatabaseID(projectID: "p") }

    func field(_ dotted: String) -> FieldPath { FieldPath(segments: dotted.split(separator: ".").map(String.init)) }

    func filter(_ dotted: String, _ op: FilterOperator, _ value: Value) -> Filter {
        .field(FieldFilter(field(dotted), op, value))
    }

    /// Values that collide across types and numbers (ints and doubles, NaN, null, arrays of mixed elements).
    var pool: [Value] {
        [
            .null, .boolean(false), .boolean(true), .integer(0), .double(-0.0), .integer(1), .double(1.0), .integer(2),
            .double(2.5), .double(.nan), .string(""), .string("a"), .string("b"), .bytes([1]),
            .timestamp(Timestamp(seconds: 5, nanoseconds: 0)), .array([]), .array([.integer(1)]),
            .array([.integer(1), .string("a")]), .array([.double(1.0), .null]), .map(ObjectValue(["x": .integer(1)])),
        ]
    }

    /// The fields documents have and queries use; `tags` is often an array.
    var fieldNames: [String] { ["a", "b", "m.x", "tags"] }

    /// Document `number` of the universe: mostly in collection `c`, some in a nested `c` (the same collection
    /// group) and in `other`.
    func documentKey(_ number: Int) -> DocumentKey {
        switch number % 7 {
        case 5: key("x/y/c/d\(number)")
        case 6: key("other/d\(number)")
        default: key("c/d\(number)")
        }
    }

    func randomFields(_ rng: inout SeededRandom) -> ObjectValue {
        var fields: [String: Value] = [:]
        for name in ["a", "b"] where Int.random(in: 0..<6, using: &rng) > 0 { fields[name] = pool.randomElement(using: &rng)! }
        if Int.random(in: 0..<3, using: &rng) > 0 {
            fields["m"] = Bool.random(using: &rng) ? .map(ObjectValue(["x": pool.randomElement(using: &rng)!])) : .integer(7)
        }
        if Int.random(in: 0..<4, using: &rng) > 0 {
            let arrays = pool.filter(\.isArray) + [.array([.string("a"), .string("b"), .string("a")])]
            fields["tags"] = Int.random(in: 0..<4, using: &rng) > 0 ? arrays.randomElement(using: &rng)! : pool.randomElement(using: &rng)!
        }
        return ObjectValue(fields)
    }

    /// A remote document at `version`: usually found with random fields, sometimes a tombstone.
    func randomRemoteDocument(_ number: Int, version: Int64, tombstones: Bool, _ rng: inout SeededRandom) -> Document {
        let key = documentKey(number)
        if tombstones && Int.random(in: 0..<8, using: &rng) == 0 {
            return Document(key: key, state: .noDocument, version: time(version), readTime: time(version))
        }
        return Document(key: key, state: .found, version: time(version), readTime: time(version), data: randomFields(&rng))
    }

    /// A local write to document `number`: a set, a merge of some fields, or a delete.
    func randomMutation(_ number: Int, _ rng: inout SeededRandom) -> Mutation {
        let key = documentKey(number)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return .delete(key)
        case 1:
            let name = fieldNames.randomElement(using: &rng)!
            var value = ObjectValue()
            value.set(pool.randomElement(using: &rng)!, at: field(name))
            return .patch(key, value: value, mask: FieldMask([field(name)]), precondition: .none)
        default: return .set(key, value: randomFields(&rng))
        }
    }

    func randomFieldFilter(_ rng: inout SeededRandom) -> Filter {
        let op = FilterOperator.allCases.randomElement(using: &rng)!
        let operand: Value =
            op.takesArrayOfValues
            ? .array((0..<Int.random(in: 1...3, using: &rng)).map { _ in pool.randomElement(using: &rng)! })
            : pool.randomElement(using: &rng)!
        return filter(fieldNames.randomElement(using: &rng)!, op, operand)
    }

    /// A random query on collection `c` or `x/y/c`, or collection group `c` (anywhere or under `x/y`), through
    /// the validating builders (steps they reject are skipped): filters (some OR trees), order bys, sometimes a
    /// limit or a cursor.
    func randomQuery(_ rng: inout SeededRandom) -> Query {
        let scopes = [
            Query(path: ResourcePath(segments: ["c"])), Query(path: ResourcePath(segments: ["c"])),
            Query(path: ResourcePath(segments: ["c"])), Query(path: .root, collectionGroup: "c"),
            Query(path: ResourcePath(segments: ["x", "y"]), collectionGroup: "c"), Query(path: ResourcePath(segments: ["x", "y", "c"])),
        ]
        var query = scopes.randomElement(using: &rng)!
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            var next = randomFieldFilter(&rng)
            if Int.random(in: 0..<4, using: &rng) == 0 {
                next = .or((0..<Int.random(in: 2...3, using: &rng)).map { _ in randomFieldFilter(&rng) })
            }
            query = (try? query.filtered(by: next)) ?? query
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let name = ["a", "b", "m.x", "__name__"].randomElement(using: &rng)!
            query = (try? query.ordered(by: OrderBy(field(name), descending: Bool.random(using: &rng)))) ?? query
        }
        if !query.explicitOrderBy.isEmpty && Int.random(in: 0..<5, using: &rng) == 0 {
            let values = query.explicitOrderBy.prefix(1).map { order in
                order.field.isDocumentKey ? Value.reference(database, documentKey(Int.random(in: 0..<40, using: &rng))) : pool.randomElement(using: &rng)!
            }
            query = (try? (Bool.random(using: &rng) ? query.starting(at: values) : query.ending(before: values))) ?? query
        }
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: query = (try? query.limited(to: Int.random(in: 1...5, using: &rng))) ?? query
        case 1: query = (try? query.limitedToLast(Int.random(in: 1...5, using: &rng))) ?? query
        default: break
        }
        return query
    }

    /// One to three indexes with random segments, mostly on `c`, plus (often) the index built for `query`.
    func randomIndexes(for queries: [Query], _ rng: inout SeededRandom) -> [FieldIndex] {
        var indexes: [FieldIndex] = (0..<Int.random(in: 1...3, using: &rng)).compactMap { _ in
            var segments: [FieldIndex.Segment] = []
            for name in (fieldNames + ["__name__"]).shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)) {
                let kinds: [FieldIndex.Segment.Kind] = name == "__name__" ? [.ascending, .descending] : [.ascending, .descending, .contains]
                segments.append(.init(field(name), kinds.randomElement(using: &rng)!))
            }
            return try? FieldIndex(collectionGroup: Int.random(in: 0..<6, using: &rng) == 0 ? "other" : "c", segments: segments)
        }
        for query in queries where Int.random(in: 0..<3, using: &rng) > 0 {
            for term in TargetIndexMatcher.dnfTerms(of: query) {
                if let built = try? TargetIndexMatcher(term).buildTargetIndex(), !indexes.contains(built) { indexes.append(built) }
            }
        }
        return indexes
    }

    /// The `firestore:indexes` JSON of `indexes`.
    func configurationJSON(_ indexes: [FieldIndex]) -> String {
        let definitions = indexes.map { index -> [String: Any] in
            let fields = index.segments.map { segment -> [String: String] in
                switch segment.kind {
                case .contains: ["fieldPath": segment.field.canonicalString, "arrayConfig": "CONTAINS"]
                case .ascending: ["fieldPath": segment.field.canonicalString, "order": "ASCENDING"]
                case .descending: ["fieldPath": segment.field.canonicalString, "order": "DESCENDING"]
                }
            }
            return ["collectionGroup": index.collectionGroup, "queryScope": "COLLECTION", "fields": fields]
        }
        let data = try! JSONSerialization.data(withJSONObject: ["indexes": definitions, "fieldOverrides": []])
        return String(decoding: data, as: UTF8.self)
    }

    /// The oracle: the local view of every key of the universe, matched, ordered and limited by the query.
    func expectedResults(_ store: LocalStore, _ query: Query, universe: Int) throws -> [Document] {
        let documents = try (0..<universe).compactMap { try store.localDocument(documentKey($0)) }
        return query.results(from: documents)
    }

    /// Documents as comparable lines: key, state, version, fields, local-write flag.
    func lines(_ documents: [Document]) -> [String] {
        documents.map { document in
            "\(document.key) v\(document.version.seconds) \(Value.map(document.data).canonicalString)"
                + (document.hasLocalMutations ? " local" : "")
        }
    }

    /// Checks that every ready index of the store holds exactly the entries computed from the cached remote
    /// documents of the universe; returns a description of the first difference.
    func indexProblems(_ store: LocalStore, universe: Int) throws -> String? {
        let remote = try (0..<universe).compactMap { try store.remoteDocument(documentKey($0)) }
        for status in store.fieldIndexStatuses where status.isReady {
            let expected = remote.flatMap(status.index.entries(for:)).map(\.sortKey).sorted { $0.lexicographicallyPrecedes($1) }
            let actual = store.fieldIndexView.entries(of: status.index).map(\.sortKey)
            if actual != expected {
                return "index \(status.index): \(actual.count) entries, expected \(expected.count)"
            }
        }
        return nil
    }
}
