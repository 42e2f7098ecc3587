/// `FieldValue` sentinels inside `Encodable` types, as Firebase has them: ``Firestore/Encoder`` writes the
/// sentinel itself; any other encoder gets ``FirestoreEncodingError/encodingIsNotSupported(_:)``.
///
/// ```swift
/// struct Visit: Encodable { var count: FieldValue; var at: FieldValue }
/// try ref.setData(from: Visit(count: .increment(Int64(1)), at: .serverTimestamp()), merge: true)
/// ```
extension FieldValue: Encodable {
    public func encode(to encoder: any Swift.Encoder) throws {
        throw FirestoreEncodingError.encodingIsNotSupported("FieldValue values can only be encoded with Firestore.Encoder")
    }
}
