import CairnDatabaseCore
import Foundation

/// The `Swift.Encoder` behind ``Database/Encoder``: a tree of nodes resolved into the core's JSON.
final class DatabaseValueEncoder: Swift.Encoder {
    /// The strategies of the ``Database/Encoder`` that started the encoding.
    struct Options {
        let date: Database.Encoder.DateEncodingStrategy
        let data: Database.Encoder.DataEncodingStrategy
        let float: Database.Encoder.NonConformingFloatEncodingStrategy
        let key: Database.Encoder.KeyEncodingStrategy
        let userInfo: [CodingUserInfoKey: Any]

        /// The key written for the last element of `codingPath`.
        func name(at codingPath: [any CodingKey]) -> String {
            guard let key = codingPath.last else { return "" }
            switch self.key {
            case .useDefaultKeys: return key.stringValue
            case .convertToSnakeCase: return DatabaseCodingKeys.snakeCase(key.stringValue)
            case .custom(let convert): return convert(codingPath).stringValue
            }
        }
    }

    /// What an encoder (or a nested container) has produced so far.
    final class Node {
        enum Content {
            case empty
            case value(JSONValue)
            case keyed([String: Node])
            case unkeyed([Node])
        }

        var content: Content = .empty

        /// The finished value; `nil` for a node that wrote nothing (left out of its object).
        func resolve() -> JSONValue? {
            switch content {
            case .empty: return nil
            case .value(let value): return value
            case .keyed(let children): return .object(children.compactMapValues { $0.resolve() })
            case .unkeyed(let children): return .array(children.map { $0.resolve() ?? .null })
            }
        }
    }

    let node = Node()
    let codingPath: [any CodingKey]
    let options: Options
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(codingPath: [any CodingKey], options: Options) {
        self.codingPath = codingPath
        self.options = options
    }

    /// The JSON of `value` at `codingPath`: scalars, dates and data by the strategies, anything else through its
    /// `encode(to:)`, never deeper than the database allows.
    static func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey], options: Options) throws -> JSONValue? {
        let limit = CairnDatabaseCore.Node.maxDepth
        if codingPath.count > limit {
            let start = DatabaseCodingKeys.describe(codingPath.prefix(8))
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "The value at \(start)/... nests more than \(limit) levels of keys; Firebase's limit is \(limit)."))
        }
        if let scalar = try scalar(value, codingPath: codingPath, options: options) { return scalar }
        let encoder = DatabaseValueEncoder(codingPath: codingPath, options: options)
        switch value {
        case let date as Date: try encodeDate(date, into: encoder)
        case let data as Data: try encodeData(data, into: encoder)
        default: try value.encode(to: encoder)
        }
        return encoder.node.resolve()
    }

    private static func scalar(_ value: Any, codingPath: [any CodingKey], options: Options) throws -> JSONValue? {
        switch value {
        case let stamp as ServerTimestamp: return try stamp.json(at: codingPath)
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let flag as Bool: return .bool(flag)
        case let number as Double: return try double(number, codingPath: codingPath, options: options)
        case let number as Float: return try double(Double(number), codingPath: codingPath, options: options)
        case let number as Int: return .int(Int64(number))
        case let number as Int8: return .int(Int64(number))
        case let number as Int16: return .int(Int64(number))
        case let number as Int32: return .int(Int64(number))
        case let number as Int64: return .int(number)
        case let number as UInt8: return .int(Int64(number))
        case let number as UInt16: return .int(Int64(number))
        case let number as UInt32: return .int(Int64(number))
        case let number as UInt: return try unsigned(UInt64(number), codingPath: codingPath)
        case let number as UInt64: return try unsigned(number, codingPath: codingPath)
        default: return nil
        }
    }

    private static func unsigned(_ number: UInt64, codingPath: [any CodingKey]) throws -> JSONValue {
        guard let exact = Int64(exactly: number) else {
            throw EncodingError.invalidValue(number, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "\(number) at \(DatabaseCodingKeys.describe(codingPath)) is larger than the database's "
                    + "integers (Int64)."))
        }
        return .int(exact)
    }

    private static func double(_ number: Double, codingPath: [any CodingKey], options: Options) throws -> JSONValue {
        if number.isFinite { return .double(number) }
        guard case .convertToString(let positive, let negative, let nan) = options.float else {
            throw EncodingError.invalidValue(number, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "\(number) at \(DatabaseCodingKeys.describe(codingPath)) cannot be stored: the database "
                    + "takes finite numbers only (or set nonConformingFloatEncodingStrategy)."))
        }
        return .string(number.isNaN ? nan : number > 0 ? positive : negative)
    }

    private static func encodeDate(_ date: Date, into encoder: DatabaseValueEncoder) throws {
        switch encoder.options.date {
        case .deferredToDate: try date.encode(to: encoder)
        case .secondsSince1970: encoder.node.content = .value(.double(date.timeIntervalSince1970))
        case .millisecondsSince1970:
            let milliseconds = date.timeIntervalSince1970 * 1000
            encoder.node.content = .value(Int64(exactly: milliseconds).map(JSONValue.int) ?? .double(milliseconds))
        case .iso8601: encoder.node.content = .value(.string(date.formatted(.iso8601)))
        case .formatted(let formatter): encoder.node.content = .value(.string(formatter.string(from: date)))
        case .custom(let encode): try encode(date, encoder)
        }
    }

    private static func encodeData(_ data: Data, into encoder: DatabaseValueEncoder) throws {
        switch encoder.options.data {
        case .deferredToData: try data.encode(to: encoder)
        case .base64: encoder.node.content = .value(.string(data.base64EncodedString()))
        case .custom(let encode): try encode(data, encoder)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([:]) }
        return KeyedEncodingContainer(DatabaseKeyedEncodingContainer<Key>(encoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
        return DatabaseUnkeyedEncodingContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    /// A node holding the encoding of `value` at `path`.
    func child<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> Node {
        let child = Node()
        if let encoded = try Self.encode(value, codingPath: path, options: options) { child.content = .value(encoded) }
        return child
    }

    /// A node holding an explicit null.
    static func nullNode() -> Node {
        let child = Node()
        child.content = .value(.null)
        return child
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: DatabaseValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.node.content = .value(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if let encoded = try DatabaseValueEncoder.encode(value, codingPath: codingPath, options: encoder.options) {
                encoder.node.content = .value(encoded)
            }
        }
    }
}
