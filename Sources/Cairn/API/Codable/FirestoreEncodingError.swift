/// An error of encoding with a `Codable` encoder other than ``Firestore/Encoder`` what only Firestore can write
/// (Firebase's `FirestoreEncodingError`).
///
/// ```swift
/// struct City: Codable { @DocumentID var id: String?; var name: String }
/// try JSONEncoder().encode(City(id: "TYO", name: "Tokyo"))
/// // throws FirestoreEncodingError.encodingIsNotSupported("DocumentID values can only be encoded with Firestore.Encoder")
/// ```
public enum FirestoreEncodingError: Error, Sendable {
    /// The value cannot be encoded by this encoder; the message says which encoder can.
    case encodingIsNotSupported(String)
}

/// An error of decoding with a `Codable` decoder other than ``Firestore/Decoder`` what only Firestore can read
/// (Firebase's `FirestoreDecodingError`).
public enum FirestoreDecodingError: Error, Sendable {
    /// The value cannot be decoded by this decoder; the message says which decoder can.
    case decodingIsNotSupported(String)
}
