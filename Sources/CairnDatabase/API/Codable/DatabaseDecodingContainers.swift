import CairnDatabaseCore
import Foundation

/// The keyed container of ``DatabaseValueDecoder``: an object's members, keys already through the key strategy.
struct DatabaseKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: DatabaseValueDecoder
    let members: [String: JSONValue]

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value for the key '\(key.stringValue)' at \(decoder.describe(codingPath))."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.child(try member(key), key: key).decodeValue(T.self)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try decoder.child(value, key: key).decodeValue(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(try member(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try member(key), key: key).unkeyedContainer()
    }

    /// The superclass's members, from the object under `super` that ``Database/Encoder`` writes.
    func superDecoder() throws -> any Swift.Decoder {
        decoder.child(members[DatabaseCodingKeys.Super.name] ?? .null, key: DatabaseCodingKeys.Super())
    }

    func superDecoder(forKey key: Key) throws -> any Swift.Decoder { decoder.child(try member(key), key: key) }
}

/// The unkeyed container of ``DatabaseValueDecoder``: a list's elements (gaps are null).
struct DatabaseUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: DatabaseValueDecoder
    let elements: [JSONValue]
    var currentIndex = 0

    init(decoder: DatabaseValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> DatabaseValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, DecodingError.Context(
                codingPath: codingPath + [DatabaseCodingKeys.Index(currentIndex)],
                debugDescription: "The list at \(decoder.describe(codingPath)) has only \(elements.count) elements."))
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], key: DatabaseCodingKeys.Index(currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
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
