import Foundation

/// Codable forms of reads and writes, as Firebase's Swift extensions have them.
///
/// ```swift
/// struct City: Codable {
///     @DocumentID var id: String?
///     var name: String
///     var population: Int
///     @ServerTimestamp var updated: Timestamp?
/// }
/// try db.document("cities/TYO").setData(from: City(name: "Tokyo", population: 14_000_000))
/// let city = try await db.document("cities/TYO").getDocument(as: City.self)
/// let all = try await db.collection("cities").getDocuments().documents.map { try $0.data(as: City.self) }
/// ```
///
/// Encoding errors are thrown by the call, among them `invalidArgument` for values nested deeper than
/// Firestore's 20 levels (the encoder stops there rather than recursing on); everything after (invalid data,
/// write results) goes to the completion, as with the dictionary forms.
extension DocumentSnapshot {
    /// The document decoded as `T`; throws `DecodingError.valueNotFound` when the document does not exist.
    public func data<T: Decodable>(
        as type: T.Type, with serverTimestampBehavior: ServerTimestampBehavior = .none,
        decoder: Firestore.Decoder = Firestore.Decoder()
    ) throws -> T {
        guard let data = data(with: serverTimestampBehavior) else {
            throw DecodingError.valueNotFound(
                T.self, DecodingError.Context(
                    codingPath: [], debugDescription: "Document \(reference.path) does not exist, so there is no \(T.self) to decode."))
        }
        return try decoder.decode(T.self, from: data, in: reference)
    }
}

extension DocumentReference {
    /// Encodes `value` and writes it (replacing the document, or merging with `merge: true`).
    public func setData<T: Encodable>(
        from value: T, merge: Bool = false, encoder: Firestore.Encoder = Firestore.Encoder(),
        completion: ((Error?) -> Void)? = nil
    ) throws {
        setData(try encoder.encode(value), merge: merge, completion: completion)
    }

    /// Encodes `value` and writes only `mergeFields` of it.
    public func setData<T: Encodable>(
        from value: T, mergeFields: [Any], encoder: Firestore.Encoder = Firestore.Encoder(),
        completion: ((Error?) -> Void)? = nil
    ) throws {
        setData(try encoder.encode(value), mergeFields: mergeFields, completion: completion)
    }

    /// Reads the document once and decodes it as `T`, reporting a read or decoding error as the failure.
    public func getDocument<T: Decodable>(
        as type: T.Type, with serverTimestampBehavior: ServerTimestampBehavior = .none,
        decoder: Firestore.Decoder = Firestore.Decoder(), completion: @escaping (Result<T, Error>) -> Void
    ) {
        getDocument { snapshot, error in
            guard let snapshot else {
                return completion(.failure(error ?? FirestoreErrorCode(.internal, "A read completed with neither a snapshot nor an error.")))
            }
            completion(Result { try snapshot.data(as: T.self, with: serverTimestampBehavior, decoder: decoder) })
        }
    }

    /// Reads the document once and decodes it as `T`.
    public func getDocument<T: Decodable>(
        as type: T.Type, with serverTimestampBehavior: ServerTimestampBehavior = .none,
        decoder: Firestore.Decoder = Firestore.Decoder()
    ) async throws -> T {
        try await getDocument().data(as: T.self, with: serverTimestampBehavior, decoder: decoder)
    }
}

extension CollectionReference {
    /// Encodes `value` and adds it as a new document with a generated ID.
    @discardableResult
    public func addDocument<T: Encodable>(
        from value: T, encoder: Firestore.Encoder = Firestore.Encoder(), completion: ((Error?) -> Void)? = nil
    ) throws -> DocumentReference {
        addDocument(data: try encoder.encode(value), completion: completion)
    }
}

extension WriteBatch {
    /// Encodes `value` and adds its write to the batch.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        encoder: Firestore.Encoder = Firestore.Encoder()
    ) throws -> WriteBatch {
        setData(try encoder.encode(value), forDocument: document, merge: merge)
    }

    /// Encodes `value` and adds a write of only its `mergeFields` (dotted `String`s or ``FieldPath``s).
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, mergeFields: [Any],
        encoder: Firestore.Encoder = Firestore.Encoder()
    ) throws -> WriteBatch {
        setData(try encoder.encode(value), forDocument: document, mergeFields: mergeFields)
    }
}

extension Transaction {
    /// Encodes `value` and adds its write to the transaction.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        encoder: Firestore.Encoder = Firestore.Encoder()
    ) throws -> Transaction {
        setData(try encoder.encode(value), forDocument: document, merge: merge)
    }

    /// Encodes `value` and adds a write of only its `mergeFields` to the transaction.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, mergeFields: [Any],
        encoder: Firestore.Encoder = Firestore.Encoder()
    ) throws -> Transaction {
        setData(try encoder.encode(value), forDocument: document, mergeFields: mergeFields)
    }
}
