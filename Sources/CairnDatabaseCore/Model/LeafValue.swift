/// The value of a leaf node: a string, a number (an integer or a double, as Firebase keeps them apart), a boolean,
/// or a deferred server value (`{".sv": ...}`) that the server resolves.
///
/// Leaves order as Firebase orders them under `orderByValue`: deferred values, then booleans (false < true), then
/// numbers (numerically, integers and doubles together), then strings (UTF-16 code units).
package enum LeafValue: Sendable, Hashable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// A server value placeholder such as `{".sv": "timestamp"}`, kept as its JSON.
    case deferred(JSONValue)

    /// Firebase's type rank: `object` (deferred), `boolean`, `number`, `string`.
    var typeRank: Int {
        switch self {
        case .deferred: 0
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        }
    }

    /// The JavaScript type name used in the node hash.
    var hashTypeName: String {
        switch self {
        case .deferred: "object"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        }
    }

    var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// Negative, zero or positive as this leaf orders before, with or after `other`.
    package func compare(to other: LeafValue) -> Int {
        if typeRank != other.typeRank { return typeRank - other.typeRank }
        switch (self, other) {
        case let (.bool(a), .bool(b)):
            return a == b ? 0 : (a ? 1 : -1)
        case let (.int(a), .int(b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case let (.string(a), .string(b)):
            return KeyOrder.compareCodeUnits(a, b)
        case (.deferred, .deferred):
            return 0
        default:
            let a = doubleValue ?? 0
            let b = other.doubleValue ?? 0
            return a == b ? 0 : (a < b ? -1 : 1)
        }
    }

    /// Firebase's leaf equality: the same type and value, with 1 and 1.0 equal (one JavaScript number).
    package func isSameValue(as other: LeafValue) -> Bool {
        switch (self, other) {
        case let (.deferred(a), .deferred(b)): a == b
        default: typeRank == other.typeRank && compare(to: other) == 0
        }
    }

    var json: JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .deferred(let value): value
        }
    }
}
