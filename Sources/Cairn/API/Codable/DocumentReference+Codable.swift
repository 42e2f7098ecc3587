/// `DocumentReference` in `Codable` types, as Firebase has it: ``Firestore/Encoder`` and ``Firestore/Decoder``
/// carry a reference as a reference value; any other encoder or decoder gets a clear error.
///
/// ```swift
/// struct Order: Codable { var customer: DocumentReference; var total: Int }
/// try db.collection("orders").addDocument(from: Order(customer: db.document("users/ada"), total: 3))
/// ```
extension DocumentReference: Codable {
    public convenience init(from decoder: any Swift.Decoder) throws {
        throw FirestoreDecodingError.decodingIsNotSupported(
            "DocumentReference values can only be decoded with Firestore.Decoder")
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        throw FirestoreEncodingError.encodingIsNotSupported(
            "DocumentReference values can only be encoded with Firestore.Encoder")
    }
}
