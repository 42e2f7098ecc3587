import Foundation

/// Types a ``DocumentID`` property can hold: `String` (the document's ID) or ``DocumentReference``.
///
/// ```swift
/// struct City: Codable { @DocumentID var ref: DocumentReference? }
/// ```
public protocol DocumentIDWrappable: Sendable {
    /// The value for `reference`.
    static func wrap(_ reference: DocumentReference) -> Self
}

extension String: DocumentIDWrappable {
    public static func wrap(_ reference: DocumentReference) -> String { reference.documentID }
}

extension DocumentReference: DocumentIDWrappable {
    public static func wrap(_ reference: DocumentReference) -> Self { reference as! Self }
}

/// Marks ``DocumentID`` for the encoder (which leaves it out) and the decoder (which fills it in).
protocol DocumentIDProtocol {
    init(reference: DocumentReference?)
}

/// A property that receives the document's ID (or reference) when the document is decoded, and is never written
/// as a field.
///
/// ```swift
/// struct City: Codable {
///     @DocumentID var id: String?
///     var name: String
/// }
/// let city = try snapshot.data(as: City.self)   // city.id == snapshot.documentID
/// ```
@propertyWrapper
public struct DocumentID<Value: DocumentIDWrappable & Codable>: DocumentIDProtocol, Codable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    init(reference: DocumentReference?) {
        wrappedValue = reference.map(Value.wrap)
    }

    /// Outside ``Firestore/Decoder``, there is no document: the value is `nil`.
    public init(from decoder: any Swift.Decoder) throws {
        wrappedValue = (decoder as? FirestoreValueDecoder)?.reference.map(Value.wrap)
    }

    /// Writes nothing with ``Firestore/Encoder`` (the ID is the document's name, not a field); any other encoder
    /// gets ``FirestoreEncodingError/encodingIsNotSupported(_:)``, as with Firebase.
    public func encode(to encoder: any Swift.Encoder) throws {
        if encoder is FirestoreValueEncoder { return }
        throw FirestoreEncodingError.encodingIsNotSupported("DocumentID values can only be encoded with Firestore.Encoder")
    }
}

/// Types a ``ServerTimestamp`` property can hold: ``Timestamp`` or `Date`.
///
/// ```swift
/// struct Post: Codable { @ServerTimestamp var createdAt: Date? }
/// ```
public protocol ServerTimestampWrappable {
    static func wrap(_ timestamp: Timestamp) throws -> Self
    static func unwrap(_ value: Self) throws -> Timestamp
}

extension Timestamp: ServerTimestampWrappable {
    public static func wrap(_ timestamp: Timestamp) throws -> Self { timestamp as! Self }
    public static func unwrap(_ value: Timestamp) throws -> Timestamp { value }
}

extension Date: ServerTimestampWrappable {
    public static func wrap(_ timestamp: Timestamp) throws -> Date { timestamp.dateValue() }
    public static func unwrap(_ value: Date) throws -> Timestamp { Timestamp(date: value) }
}

/// A timestamp the server fills in: `nil` is written as `FieldValue.serverTimestamp()`; a value is written as is.
///
/// ```swift
/// struct Post: Codable {
///     var text: String
///     @ServerTimestamp var createdAt: Timestamp?
/// }
/// try db.collection("posts").addDocument(from: Post(text: "hi"))
/// ```
@propertyWrapper
public struct ServerTimestamp<Value: ServerTimestampWrappable & Codable>: Codable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try Value.wrap(container.decode(Timestamp.self))
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(Value.unwrap(wrappedValue))
        } else {
            try container.encode(FieldValueBox(FieldValue.serverTimestamp()))
        }
    }
}

/// An optional property written as an explicit `null` when it is `nil` (plain optionals are left out).
///
/// ```swift
/// struct Profile: Codable {
///     @ExplicitNull var nickname: String?
/// }
/// ```
@propertyWrapper
public struct ExplicitNull<Value: Codable>: Codable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

/// Carries a ``FieldValue`` through `Encodable` (the Firestore encoder stores the sentinel itself).
struct FieldValueBox: Encodable {
    let fieldValue: FieldValue

    init(_ fieldValue: FieldValue) { self.fieldValue = fieldValue }

    func encode(to encoder: any Swift.Encoder) throws {
        throw EncodingError.invalidValue(
            fieldValue, EncodingError.Context(
                codingPath: encoder.codingPath, debugDescription: "FieldValue can only be encoded by Firestore.Encoder."))
    }
}

/// A missing key decodes these wrappers as `nil` (synthesized `Decodable` would otherwise throw `keyNotFound`).
extension KeyedDecodingContainer {
    public func decode<Value>(_ type: DocumentID<Value>.Type, forKey key: Key) throws -> DocumentID<Value> {
        try decodeIfPresent(type, forKey: key) ?? DocumentID(wrappedValue: nil)
    }

    public func decode<Value>(_ type: ServerTimestamp<Value>.Type, forKey key: Key) throws -> ServerTimestamp<Value> {
        try decodeIfPresent(type, forKey: key) ?? ServerTimestamp(wrappedValue: nil)
    }

    public func decode<Value>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws -> ExplicitNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? ExplicitNull(wrappedValue: nil)
    }
}

extension DocumentID: Equatable where Value: Equatable {}
extension DocumentID: Hashable where Value: Hashable {}
extension DocumentID: Sendable where Value: Sendable {}
extension ServerTimestamp: Equatable where Value: Equatable {}
extension ServerTimestamp: Hashable where Value: Hashable {}
extension ServerTimestamp: Sendable where Value: Sendable {}
extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}
extension ExplicitNull: Sendable where Value: Sendable {}
