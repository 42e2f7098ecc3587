/// The rank of a value's type in Firestore's cross-type order: every value of a lower rank sorts before every
/// value of a higher rank, whatever their contents.
///
/// Integers and doubles share one rank (``number``), so they sort together by numeric value. A pending server
/// timestamp (local only) sorts after every real timestamp and before every string, as in the Firebase SDKs.
/// Vectors (maps of Firestore's vector shape, `Value+Vector.swift`) sort after arrays and before other maps.
///
/// ```swift
/// Value.string("a").typeOrder < Value.bytes([]).typeOrder   // true: strings before bytes
/// Value.integer(2).typeOrder == Value.double(0.5).typeOrder  // true: both are .number
/// ```
package enum TypeOrder: Int, Sendable, Hashable, Comparable, CaseIterable {
    case null = 0
    case boolean = 1
    case number = 2
    case timestamp = 3
    case serverTimestamp = 4
    case string = 5
    case bytes = 6
    case reference = 7
    case geoPoint = 8
    case array = 9
    case vector = 10
    case map = 11

    package static func < (a: TypeOrder, b: TypeOrder) -> Bool { a.rawValue < b.rawValue }
}

extension Value {
    /// The rank of this value's type in Firestore's cross-type order (see ``TypeOrder``).
    package var typeOrder: TypeOrder {
        switch self {
        case .null: .null
        case .boolean: .boolean
        case .integer, .double: .number
        case .timestamp: .timestamp
        case .serverTimestamp: .serverTimestamp
        case .string: .string
        case .bytes: .bytes
        case .reference: .reference
        case .geoPoint: .geoPoint
        case .array: .array
        case .map(let object): object.vectorElements == nil ? .map : .vector
        }
    }
}
