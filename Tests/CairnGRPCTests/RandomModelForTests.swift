import CairnCore
import CairnModel
import CairnTestSupport

/// Seeded generators of CairnModel values, documents, queries and mutations for the serializer's round trips.
struct RandomModel {
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[random.below(choices.count)] }

    mutating func bool() -> Bool { random.below(2) == 0 }

    /// Field and segment names, some of which need backtick quoting in server field paths.
    mutating func name() -> String {
        pick(["a", "b", "name", "_x1", "with space", "dot.ted", "back`tick", "slash\\", "ünï", "🙂", "9lives", "x-y"])
    }

    mutating func fieldPath() -> FieldPath {
        FieldPath(segments: (0...random.below(2)).map { _ in name() })
    }

    mutating func key() -> DocumentKey {
        let depth = 1 + random.below(2)
        var segments: [String] = []
        for level in 0..<depth { segments += ["c\(level)\(random.below(3))", "d\(random.below(100))"] }
        return DocumentKey(path: ResourcePath(segments: segments))
    }

    mutating func timestamp() -> Timestamp {
        Timestamp(
            seconds: Int64(random.below(400_000_000_000)) - 62_135_596_800,
            nanoseconds: Int32(random.below(1_000_000_000)))
    }

    mutating func value(depth: Int = 0) -> Value {
        switch random.below(depth >= 2 ? 10 : 12) {
        case 0: return .null
        case 1: return .boolean(bool())
        case 2: return .integer(pick([0, 1, -1, .max, .min, Int64(bitPattern: random.next())]))
        case 3: return .double(pick([0.0, -0.0, .nan, .infinity, -.infinity, 1.5, -1e300, .leastNonzeroMagnitude]))
        case 4: return .timestamp(timestamp())
        case 5:
            return .string(String((0..<random.below(6)).map { _ in pick(["a", "é", "🙂", "\0", "/", "`"]) }.joined()))
        case 6: return .bytes((0..<random.below(8)).map { _ in UInt8(random.below(256)) })
        case 7:
            let database = pick([DatabaseID(projectID: "p"), DatabaseID(projectID: "other", databaseID: "db2")])
            return .reference(database, key())
        case 8: return .geoPoint(GeoPoint(latitude: pick([-90, 0, 45.5, 90]), longitude: pick([-180, 0, 12.25, 180])))
        case 9: return .double(Double(bitPattern: random.next()))
        case 10: return .array((0..<random.below(4)).map { _ in value(depth: depth + 1) })
        default: return .map(object(depth: depth + 1))
        }
    }

    mutating func object(depth: Int = 0) -> ObjectValue {
        var fields: [String: Value] = [:]
        for _ in 0..<random.below(5) { fields[name()] = value(depth: depth) }
        return ObjectValue(fields)
    }

    mutating func fieldFilter() -> Filter {
        let op = pick(FilterOperator.allCases)
        let field = random.below(6) == 0 ? FieldPath.documentKey : fieldPath()
        let operand: Value
        switch op {
        case .in, .notIn, .arrayContainsAny: operand = .array((1...1 + random.below(3)).map { _ in value(depth: 2) })
        case .equal, .notEqual: operand = pick([.null, .double(.nan), value(depth: 2)])
        default: operand = value(depth: 2)
        }
        return .field(FieldFilter(field, op, operand))
    }

    /// A filter list as a server would send it back: top-level composites are ORs with two or more children.
    mutating func filters() -> [Filter] {
        (0..<random.below(4)).map { _ in
            guard random.below(4) == 0 else { return fieldFilter() }
            let children = (0..<2 + random.below(2)).map { _ in
                random.below(3) == 0 ? .and([fieldFilter(), fieldFilter()]) : fieldFilter()
            }
            return .or(children)
        }
    }

    mutating func bound() -> Bound {
        Bound(position: (1...1 + random.below(2)).map { _ in value(depth: 2) }, inclusive: bool())
    }

    mutating func queryTarget() -> QueryTarget {
        let group = random.below(3) == 0 ? name() : nil
        let path: ResourcePath
        if group != nil {
            path = random.below(2) == 0 ? .root : key().path
        } else {
            path = random.below(2) == 0 ? ResourcePath(segments: [name()]) : key().path.appending(name())
        }
        return QueryTarget(
            path: path, collectionGroup: group, filters: filters(),
            orderBy: (0..<random.below(3)).map { _ in OrderBy(fieldPath(), descending: bool()) },
            limit: random.below(3) == 0 ? random.below(1000) : nil,
            startAt: random.below(3) == 0 ? bound() : nil, endAt: random.below(3) == 0 ? bound() : nil)
    }

    mutating func precondition() -> Precondition {
        pick([.none, .exists(true), .exists(false), .updateTime(timestamp())])
    }

    mutating func transforms() -> [FieldTransform] {
        (0..<random.below(3)).map { _ in
            let operation: TransformOperation = pick([
                .serverTimestamp, .increment(pick([.integer(5), .double(-2.5)])),
                .arrayUnion([value(depth: 2)]), .arrayRemove([value(depth: 2), value(depth: 2)]),
            ])
            return FieldTransform(field: fieldPath(), operation: operation)
        }
    }

    mutating func mutation() -> Mutation {
        switch random.below(3) {
        case 0: return .set(key(), value: object(), precondition: precondition(), transforms: transforms())
        case 1:
            let mask = FieldMask((0..<random.below(4)).map { _ in fieldPath() })
            return .patch(key(), value: object(), mask: mask, precondition: precondition(), transforms: transforms())
        default: return .delete(key(), precondition: precondition())
        }
    }
}
