import CairnDatabaseCore
import Foundation

/// The `Swift.Decoder` behind ``Database/Decoder``, over the core's JSON.
final class DatabaseValueDecoder: Swift.Decoder {
    /// The strategies of the ``Database/Decoder`` that started the decoding, and where its data is.
    struct Options {
        let date: Database.Decoder.DateDecodingStrategy
        let data: Database.Decoder.DataDecodingStrategy
        let float: Database.Decoder.NonConformingFloatDecodingStrategy
        let key: Database.Decoder.KeyDecodingStrategy
        let userInfo: [CodingUserInfoKey: Any]
        let location: DatabasePath?
    }

    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: Options
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(value: JSONValue, codingPath: [any CodingKey], options: Options) {
        self.value = value
        self.codingPath = codingPath
        self.options = options
    }

    /// Where `codingPath` is, for messages: the database path when the location is known (`/users/ada/age`).
    func describe(_ codingPath: [any CodingKey]) -> String {
        let relative = DatabaseCodingKeys.describe(codingPath)
        guard let location = options.location else { return relative }
        if codingPath.isEmpty { return location.description }
        return location.isEmpty ? "/\(relative)" : "\(location.description)/\(relative)"
    }

    /// An object's members; a list's elements by their indexes as keys (the database gives an object whose keys
    /// are mostly the integers from 0 as a list, so a dictionary with such keys reads back as one).
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let members: [String: JSONValue]
        switch value {
        case .object(let object): members = object
        case .array(let elements):
            let present = elements.enumerated().filter { $0.element != .null }
            members = Dictionary(uniqueKeysWithValues: present.map { (String($0.offset), $0.element) })
        default: throw mismatch([String: Any].self)
        }
        return KeyedDecodingContainer(DatabaseKeyedDecodingContainer<Key>(decoder: self, members: renamed(members)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self) }
        return DatabaseUnkeyedDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    private func renamed(_ members: [String: JSONValue]) -> [String: JSONValue] {
        switch options.key {
        case .useDefaultKeys: return members
        case .convertFromSnakeCase:
            return Dictionary(members.map { (DatabaseCodingKeys.camelCase($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        case .custom(let convert):
            let named = members.map { (convert(codingPath + [DatabaseCodingKeys.Name($0.key)]).stringValue, $0.value) }
            return Dictionary(named, uniquingKeysWith: { first, _ in first })
        }
    }

    func mismatch(_ type: Any.Type) -> DecodingError {
        if value == .null { return missing(type) }
        return DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected \(type) at \(describe(codingPath)) but found \(Self.kind(of: value))."))
    }

    func missing(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(type, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected \(type) at \(describe(codingPath)) but there is no data."))
    }

    func corrupted(_ message: String) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: codingPath, debugDescription: "\(message) at \(describe(codingPath))."))
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "no data"
        case .bool(let flag): "the boolean \(flag)"
        case .int(let number): "the number \(number)"
        case .double(let number): "the number \(number)"
        case .string(let string): "a string (\"\(string.prefix(40))\")"
        case .array: "a list"
        case .object: "an object"
        }
    }

    func child(_ value: JSONValue, key: any CodingKey) -> DatabaseValueDecoder {
        DatabaseValueDecoder(value: value, codingPath: codingPath + [key], options: options)
    }

    /// This decoder's value as a `T`: scalars, dates and data directly (by the strategies), anything else through
    /// `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if value == .null, !(T.self is ExpressibleByNilLiteral.Type) { throw missing(T.self) }
        if T.self == Date.self { return try decodeDate() as! T }
        if T.self == Data.self { return try decodeData() as! T }
        if T.self == String.self {
            guard case .string(let string) = value else { throw mismatch(String.self) }
            return string as! T
        }
        if T.self == Bool.self {
            guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
            return flag as! T
        }
        if let number = try DatabaseNumberDecoding.number(T.self, from: self) { return number }
        return try T(from: self)
    }

    private func decodeDate() throws -> Date {
        switch options.date {
        case .deferredToDate: return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try decodeValue(Double.self))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try decodeValue(Double.self) / 1000)
        case .iso8601:
            guard let date = ISO8601DateFormatter().date(from: try decodeValue(String.self)) else {
                throw corrupted("Expected an ISO 8601 date")
            }
            return date
        case .formatted(let formatter):
            guard let date = formatter.date(from: try decodeValue(String.self)) else {
                throw corrupted("The date does not have the formatter's format")
            }
            return date
        case .custom(let decode): return try decode(self)
        }
    }

    private func decodeData() throws -> Data {
        switch options.data {
        case .deferredToData: return try Data(from: self)
        case .base64:
            guard let data = Data(base64Encoded: try decodeValue(String.self)) else { throw corrupted("Expected Base64 data") }
            return data
        case .custom(let decode): return try decode(self)
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: DatabaseValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(T.self) }
    }
}
