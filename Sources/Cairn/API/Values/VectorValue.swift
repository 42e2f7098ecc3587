import CairnModel
import Foundation

/// A vector of doubles stored in a document, such as an embedding for vector search (Firebase's `VectorValue`).
///
/// ```swift
/// try await db.document("items/a").setData(["embedding": FieldValue.vector([0.1, 0.2, 0.3])])
/// let stored = try await db.document("items/a").getDocument().get("embedding") as? VectorValue
/// stored?.array                                   // [0.1, 0.2, 0.3]
/// db.collection("items").order(by: "embedding")   // vectors sort by length, then element by element
/// ```
///
/// Stored as Firestore stores vectors, the map `{"__type__": "__vector__", "value": [...]}`, so other clients
/// (the Python client's `Vector`, the console) read and write the same documents. In queries and orders a vector
/// sorts after arrays and before maps; among vectors the shorter one first, then element by element. With
/// `Codable`, a `VectorValue` property is stored as a vector by ``Firestore/Encoder``; other encoders see a
/// keyed container with `array`, as Firebase's Swift overlay encodes it.
public final class VectorValue: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The vector's elements.
    public let array: [Double]

    /// A vector holding a copy of `array`.
    public init(_ array: [Double]) {
        self.array = array
    }

    public static func == (lhs: VectorValue, rhs: VectorValue) -> Bool { lhs.array == rhs.array }

    public func hash(into hasher: inout Hasher) { hasher.combine(array) }

    public var description: String { "<FIRVectorValue: \(array)>" }

    private enum CodingKeys: String, CodingKey {
        case array
    }

    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode([Double].self, forKey: .array))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(array, forKey: .array)
    }

    /// The vector of a stored vector's elements (another client may store integers); `nil` when an element is
    /// not a number, which no Firebase client writes: such a map is shown as the map it is.
    convenience init?(elements: [CairnModel.Value]) {
        var numbers: [Double] = []
        numbers.reserveCapacity(elements.count)
        for element in elements {
            switch element {
            case .integer(let integer): numbers.append(Double(integer))
            case .double(let double): numbers.append(double)
            default: return nil
            }
        }
        self.init(numbers)
    }
}

extension FieldValue {
    /// A vector of `array`'s doubles, to store in a field (Firebase's `FieldValue.vector(_:)`).
    ///
    /// ```swift
    /// ref.setData(["embedding": FieldValue.vector([1.0, 2.0])])
    /// ```
    public static func vector(_ array: [Double]) -> VectorValue { VectorValue(array) }

    /// A vector of `array`'s floats, widened to doubles.
    public static func vector(_ array: [Float]) -> VectorValue { VectorValue(array.map(Double.init)) }
}
