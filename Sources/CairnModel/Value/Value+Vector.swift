/// Vectors (Firestore's vector embeddings, Firebase's `VectorValue`): on the wire, in the cache and in this
/// model a vector is a map of exactly Firestore's shape, `{"__type__": "__vector__", "value": [doubles]}`, so
/// the serializer and the document codec store it as any map, and a document written by another client (the
/// Python client's `Vector`, the console) reads back as a vector.
///
/// What makes it more than a map is its order: vectors have their own ``TypeOrder/vector`` slot, after arrays
/// and before maps, and compare by length first, then element by element (Firebase's `CompareVectors` in
/// `model/value_util.cc`). A map is a vector when its `__type__` is the string `__vector__` and its `value`
/// an array (`IsVectorValue`); other fields, which no client writes, do not count.
///
/// ```swift
/// let embedding = Value.vector([0.5, 1.5])
/// embedding.vectorElements                       // [.double(0.5), .double(1.5)]
/// Value.compare(.vector([9]), .vector([1, 2]))   // -1: the shorter vector first
/// embedding.typeOrder                            // .vector
/// ```
extension Value {
    /// The map key that names a special map's type.
    package static let vectorTypeKey = "__type__"
    /// The `__type__` of a vector.
    package static let vectorTypeName = "__vector__"
    /// The map key of a vector's elements.
    package static let vectorValueKey = "value"

    /// The vector of `elements` in Firestore's map form.
    package static func vector(_ elements: [Double]) -> Value {
        .map(ObjectValue([vectorTypeKey: .string(vectorTypeName), vectorValueKey: .array(elements.map(Value.double))]))
    }

    /// The elements of a vector; `nil` for every value that is not one.
    package var vectorElements: [Value]? {
        guard case .map(let object) = self else { return nil }
        return object.vectorElements
    }

    /// True for a vector (see ``vectorElements``).
    package var isVector: Bool { vectorElements != nil }
}

extension ObjectValue {
    /// The elements of this map if it is a vector (`__type__` is `__vector__` and `value` an array), else `nil`.
    package var vectorElements: [Value]? {
        guard case .string(let type)? = fields[Value.vectorTypeKey], type == Value.vectorTypeName,
            case .array(let elements)? = fields[Value.vectorValueKey]
        else { return nil }
        return elements
    }
}
