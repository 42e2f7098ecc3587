import Foundation

extension DatabaseReference {
    /// Encodes `value` with `encoder` and writes it here as ``setValue(_:withCompletionBlock:)`` does (replacing
    /// what is there). An encoding error (a non-finite number, nesting deeper than 32 levels, a failing
    /// `encode(to:)`) is thrown and nothing is written; what the write itself refuses (an invalid key such as
    /// `"a.b"`) goes to `completion` as with `setValue`.
    ///
    /// ```swift
    /// try ref.child("users/ada").setValue(from: User(name: "Ada", age: 36)) { error in ... }
    /// ```
    public func setValue<T: Encodable>(
        from value: T, encoder: Database.Encoder = Database.Encoder(), completion: ((Error?) -> Void)? = nil
    ) throws {
        let encoded = try encoder.encode(value)
        if let completion {
            setValue(encoded, withCompletionBlock: { error, _ in completion(error) })
        } else {
            setValue(encoded)
        }
    }
}

extension DataSnapshot {
    /// The snapshot's value decoded as a `T` with `decoder`. No data decodes as `nil` for an optional `T` and is
    /// `DecodingError.valueNotFound` otherwise; every error's message names the database path where decoding failed.
    ///
    /// ```swift
    /// let user = try snapshot.data(as: User.self)
    /// ```
    public func data<T: Decodable>(as type: T.Type, decoder: Database.Decoder = Database.Decoder()) throws -> T {
        try decoder.decode(T.self, from: value ?? NSNull(), at: ref.path)
    }
}
