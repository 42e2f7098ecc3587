import Foundation

extension Firestore {
    /// Decodes `Decodable` values from document data (``DocumentSnapshot/data()``), as
    /// ``DocumentSnapshot/data(as:with:decoder:)`` does.
    ///
    /// Firestore's types decode as themselves (``Timestamp``, ``GeoPoint``, ``VectorValue``, ``DocumentReference``,
    /// `Data`), a timestamp also as a `Date`, numbers as any numeric type that holds them exactly, and ``DocumentID``
    /// properties from the document's reference.
    ///
    /// ```swift
    /// struct City: Codable { @DocumentID var id: String?; var name: String }
    /// let city = try Firestore.Decoder().decode(City.self, from: ["name": "Tokyo"], in: db.document("cities/TYO"))
    /// ```
    public final class Decoder: @unchecked Sendable {
        /// Passed to every `init(from:)` as `decoder.userInfo`.
        public var userInfo: [CodingUserInfoKey: Any] = [:]

        public init() {}

        /// A `T` from `data` (a `[String: Any]` of document fields, or any Firestore value); `reference` fills
        /// in ``DocumentID`` properties.
        public func decode<T: Decodable>(_ type: T.Type, from data: Any, in reference: DocumentReference? = nil) throws -> T {
            try FirestoreValueDecoder(value: data, codingPath: [], userInfo: userInfo, reference: reference).decodeValue(T.self)
        }
    }
}

/// The `Swift.Decoder` behind ``Firestore/Decoder``, over the values ``UserDataWriter`` produces.
final class FirestoreValueDecoder: Swift.Decoder {
    let value: Any
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    /// The document being decoded, for ``DocumentID``.
    let reference: DocumentReference?

    init(value: Any, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any], reference: DocumentReference?) {
        self.value = value
        self.codingPath = codingPath
        self.userInfo = userInfo
        self.reference = reference
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let fields = value as? [String: Any] else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let elements = value as? [Any] else { throw mismatch([Any].self) }
        return UnkeyedContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected \(type) but found \(Swift.type(of: value))."))
    }

    /// This decoder's value as a `T`: Firestore's types and numbers directly, anything else through `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let documentID = T.self as? DocumentIDProtocol.Type {
            return documentID.init(reference: reference) as! T
        }
        if T.self == Date.self {
            guard let timestamp = value as? Timestamp else { throw mismatch(Timestamp.self) }
            return timestamp.dateValue() as! T
        }
        if T.self == Timestamp.self || T.self == GeoPoint.self || T.self == VectorValue.self
            || T.self == DocumentReference.self || T.self == Data.self || T.self == String.self
        {
            guard let typed = value as? T else { throw mismatch(T.self) }
            return typed
        }
        if let number = try decodeNumber(T.self) { return number }
        return try T(from: self)
    }

    /// Booleans and numbers from `NSNumber`, exactly: a boolean is never a number, and an integer type never
    /// takes a fraction or a value out of its range.
    private func decodeNumber<T>(_ type: T.Type) throws -> T? {
        let number = value as? NSNumber
        let kind = number.map { UInt8(bitPattern: $0.objCType.pointee) }
        let isBool = kind == UInt8(ascii: "c") || kind == UInt8(ascii: "B")
        let isFloating = kind == UInt8(ascii: "d") || kind == UInt8(ascii: "f")
        func exact<I: BinaryInteger>(_: I.Type) throws -> I {
            guard let number, !isBool else { throw mismatch(I.self) }
            let exact = isFloating ? I(exactly: number.doubleValue) : I(exactly: number.int64Value)
            guard let exact else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: codingPath, debugDescription: "\(number) is not a \(I.self)."))
            }
            return exact
        }
        switch T.self {
        case is Bool.Type:
            guard let number, isBool else { throw mismatch(Bool.self) }
            return number.boolValue as? T
        case is Double.Type:
            guard let number, !isBool else { throw mismatch(Double.self) }
            return number.doubleValue as? T
        case is Float.Type:
            guard let number, !isBool else { throw mismatch(Float.self) }
            return number.floatValue as? T
        case is Int.Type: return try exact(Int.self) as? T
        case is Int8.Type: return try exact(Int8.self) as? T
        case is Int16.Type: return try exact(Int16.self) as? T
        case is Int32.Type: return try exact(Int32.self) as? T
        case is Int64.Type: return try exact(Int64.self) as? T
        case is UInt.Type: return try exact(UInt.self) as? T
        case is UInt8.Type: return try exact(UInt8.self) as? T
        case is UInt16.Type: return try exact(UInt16.self) as? T
        case is UInt32.Type: return try exact(UInt32.self) as? T
        case is UInt64.Type: return try exact(UInt64.self) as? T
        default: return nil
        }
    }

    func child(_ value: Any, key: any CodingKey) -> FirestoreValueDecoder {
        FirestoreValueDecoder(value: value, codingPath: codingPath + [key], userInfo: userInfo, reference: reference)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: FirestoreValueDecoder
        let fields: [String: Any]

        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { fields.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func field(_ key: Key) throws -> Any {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, DecodingError.Context(codingPath: codingPath, debugDescription: "No field '\(key.stringValue)'."))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try field(key) is NSNull }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if T.self is DocumentIDProtocol.Type {
                return try decoder.child(NSNull(), key: key).decodeValue(T.self)
            }
            return try decoder.child(try field(key), key: key).decodeValue(T.self)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if T.self is DocumentIDProtocol.Type { return try decode(T.self, forKey: key) }
            guard let value = fields[key.stringValue], !(value is NSNull) else { return nil }
            return try decoder.child(value, key: key).decodeValue(T.self)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try decoder.child(try field(key), key: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.child(try field(key), key: key).unkeyedContainer()
        }

        /// The superclass's fields, from the map under `super` that ``Firestore/Encoder`` writes (null when absent,
        /// as Foundation's JSONDecoder does).
        func superDecoder() throws -> any Swift.Decoder { decoder.child(fields[SuperKey.name] ?? NSNull(), key: SuperKey()) }

        func superDecoder(forKey key: Key) throws -> any Swift.Decoder { decoder.child(try field(key), key: key) }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: FirestoreValueDecoder
        let elements: [Any]
        var currentIndex = 0

        init(decoder: FirestoreValueDecoder, elements: [Any]) {
            self.decoder = decoder
            self.elements = elements
        }

        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> FirestoreValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "The array has no more elements."))
            }
            defer { currentIndex += 1 }
            return decoder.child(elements[currentIndex], key: IndexKey(currentIndex))
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex] is NSNull else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(T.self) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> any Swift.Decoder { try next() }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: FirestoreValueDecoder

        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.value is NSNull }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(T.self) }
    }
}
