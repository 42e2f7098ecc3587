/// A value as the user writes it: plain data, or one of the `FieldValue` sentinels that stand for an operation
/// rather than a value. ``MutationBuilder`` turns a document of these into a ``Mutation``: plain data into the
/// mutation's value, sentinels into field transforms or deletes, and rejects sentinels where Firestore does not
/// allow them.
///
/// Literals make user data read like the dictionaries of Firebase's API:
///
/// ```swift
/// let data: [String: UserValue] = [
///     "name": "Ada",
///     "visits": .increment(.integer(1)),
///     "updated": .serverTimestamp,
///     "tags": .arrayUnion(["math"]),
///     "nickname": .delete,                     // only in updates and merges
/// ]
/// ```
package indirect enum UserValue: Sendable, Equatable {
    /// Plain data. Maps and arrays inside it are checked like ``map(_:)`` and ``array(_:)``.
    case value(Value)
    /// A map whose values may hold sentinels.
    case map([String: UserValue])
    /// An array; its elements may not hold sentinels, nor be arrays.
    case array([UserValue])
    /// `FieldValue.vector(_:)` / `VectorValue`: a vector, stored as Firestore's vector map (``Value/vector(_:)``),
    /// whose reserved keys only this case may write.
    case vector([Double])
    /// `FieldValue.delete()`: removes the field (update and set-with-merge only).
    case delete
    /// `FieldValue.serverTimestamp()`: the commit time.
    case serverTimestamp
    /// `FieldValue.increment(_:)`: adds the operand, an integer or a double.
    case increment(Value)
    /// `FieldValue.arrayUnion(_:)`: appends the elements the array lacks.
    case arrayUnion([UserValue])
    /// `FieldValue.arrayRemove(_:)`: removes every element equal to one of these.
    case arrayRemove([UserValue])

    /// The sentinel's name in Firebase's API and error messages, such as `FieldValue.delete()`; `nil` for data.
    var sentinelName: String? {
        switch self {
        case .value, .map, .array, .vector: nil
        case .delete: "FieldValue.delete()"
        case .serverTimestamp: "FieldValue.serverTimestamp()"
        case .increment: "FieldValue.increment()"
        case .arrayUnion: "FieldValue.arrayUnion()"
        case .arrayRemove: "FieldValue.arrayRemove()"
        }
    }
}

extension UserValue: ExpressibleByNilLiteral {
    package init(nilLiteral: ()) { self = .value(.null) }
}

extension UserValue: ExpressibleByBooleanLiteral {
    package init(booleanLiteral value: Bool) { self = .value(.boolean(value)) }
}

extension UserValue: ExpressibleByIntegerLiteral {
    package init(integerLiteral value: Int64) { self = .value(.integer(value)) }
}

extension UserValue: ExpressibleByFloatLiteral {
    package init(floatLiteral value: Double) { self = .value(.double(value)) }
}

extension UserValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .value(.string(value)) }
}

extension UserValue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: UserValue...) { self = .array(elements) }
}

extension UserValue: ExpressibleByDictionaryLiteral {
    /// A map; a repeated key keeps its last value.
    package init(dictionaryLiteral elements: (String, UserValue)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
