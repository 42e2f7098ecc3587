import CairnModel
import Foundation

extension Firestore {
    /// Encodes `Encodable` values into the `[String: Any]` documents of ``DocumentReference/setData(_:completion:)``.
    ///
    /// Firestore's own types pass through as values: ``Timestamp``, ``GeoPoint``, ``VectorValue``, ``DocumentReference``,
    /// ``FieldValue``, `Date` (as a timestamp) and `Data` (as bytes). Optionals that are `nil` are left out (use
    /// ``ExplicitNull`` for an explicit `null`); ``DocumentID`` properties are never written; a `nil`
    /// ``ServerTimestamp`` is written as `FieldValue.serverTimestamp()`.
    ///
    /// Values nested deeper than Firestore allows (20 levels of maps and arrays) stop the encoding with
    /// ``FirestoreErrorCode`` `invalidArgument` instead of recursing on, so a self-referencing or very deep
    /// structure cannot exhaust the stack.
    ///
    /// ```swift
    /// struct City: Codable { var name: String; var population: Int }
    /// let fields = try Firestore.Encoder().encode(City(name: "Tokyo", population: 14_000_000))
    /// // ["name": "Tokyo", "population": 14000000]
    /// ```
    public final class Encoder: @unchecked Sendable {
        /// Passed to every `encode(to:)` as `encoder.userInfo`.
        public var userInfo: [CodingUserInfoKey: Any] = [:]

        public init() {}

        /// The document fields of `value`, which must encode as a keyed container (a struct or class).
        public func encode<T: Encodable>(_ value: T) throws -> [String: Any] {
            let encoded = try FirestoreValueEncoder.encode(value, codingPath: [], userInfo: userInfo)
            guard let fields = encoded as? [String: Any] else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(
                        codingPath: [], debugDescription: "Top-level \(T.self) is not a map; Firestore documents are maps of fields."))
            }
            return fields
        }
    }
}

/// The `Swift.Encoder` behind ``Firestore/Encoder``: a tree of nodes resolved into `Any` values.
final class FirestoreValueEncoder: Swift.Encoder {
    /// What an encoder (or a nested container) has produced so far.
    final class Node {
        enum Content {
            case empty
            case value(Any)
            case keyed([String: Node])
            case unkeyed([Node])
        }

        var content: Content = .empty

        /// The finished value: maps and arrays of their nodes' values; `nil` for a node that wrote nothing.
        /// `codingPath` is where the node sits; nested containers deeper than Firestore allows throw.
        func resolve(at codingPath: [any CodingKey]) throws -> Any? {
            switch content {
            case .empty:
                return nil
            case .value(let value):
                return value
            case .keyed(let children):
                try FirestoreValueEncoder.checkDepth(codingPath)
                var fields: [String: Any] = [:]
                for (key, child) in children {
                    fields[key] = try child.resolve(at: codingPath + [FieldNameKey(stringValue: key)])
                }
                return fields
            case .unkeyed(let children):
                try FirestoreValueEncoder.checkDepth(codingPath)
                var elements: [Any] = []
                for (index, child) in children.enumerated() {
                    elements.append(try child.resolve(at: codingPath + [IndexKey(index)]) ?? NSNull())
                }
                return elements
            }
        }
    }

    let node = Node()
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    /// The Firestore value of `value`: Firestore's types as they are, anything else through its `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) throws -> Any? {
        if let direct = directValue(value) { return direct }
        // A value here may still be a scalar (through a single-value container); only one level further down
        // is it certainly inside a map or array that is too deep.
        try checkDepth(codingPath.dropLast())
        let encoder = FirestoreValueEncoder(codingPath: codingPath, userInfo: userInfo)
        try value.encode(to: encoder)
        return try encoder.node.resolve(at: codingPath)
    }

    /// Throws `invalidArgument` when a map or array at `codingPath` (a top-level field is at depth 1) would be
    /// deeper than Firestore allows. The write's own validation gives the same message for what passes here.
    static func checkDepth<Path: Collection<any CodingKey>>(_ codingPath: Path) throws {
        guard let problem = DocumentValidation.depthProblem(codingPath.count) else { return }
        let field = codingPath.map(\.stringValue).joined(separator: ".")
        throw FirestoreErrorCode(
            .invalidArgument, "Invalid data. \(problem) (found in field \(field.count <= 200 ? field : "\(field.prefix(200))…"))")
    }

    private static func directValue(_ value: Any) -> Any? {
        switch value {
        case let date as Date: Timestamp(date: date)
        case let box as FieldValueBox: box.fieldValue
        case is Timestamp, is GeoPoint, is VectorValue, is DocumentReference, is FieldValue, is Data, is NSNull: value
        case is Bool, is String, is Double, is Float: value
        case is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64: value
        default: nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
        return UnkeyedContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self, codingPath: codingPath)
    }

    /// A child node holding the encoding of `value` at `path`.
    func child<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> Node {
        let child = Node()
        if let encoded = try Self.encode(value, codingPath: path, userInfo: userInfo) {
            child.content = .value(encoded)
        }
        return child
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: FirestoreValueEncoder
        let node: Node
        let codingPath: [any CodingKey]

        private func set(_ child: Node, for key: Key) { set(child, named: key.stringValue) }

        private func set(_ child: Node, named name: String) {
            guard case .keyed(var children) = node.content else { return }
            children[name] = child
            node.content = .keyed(children)
        }

        mutating func encodeNil(forKey key: Key) throws {
            let child = Node()
            child.content = .value(NSNull())
            set(child, for: key)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if value is DocumentIDProtocol { return }
            set(try encoder.child(value, at: codingPath + [key]), for: key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = Node()
            child.content = .keyed([:])
            set(child, for: key)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node()
            child.content = .unkeyed([])
            set(child, for: key)
            return UnkeyedContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
        }

        /// The superclass's encoding, in a map under the field `super` (as Foundation's JSONEncoder does); the
        /// type's own `CodingKeys` need not have that case.
        mutating func superEncoder() -> any Swift.Encoder {
            let child = FirestoreValueEncoder(codingPath: codingPath + [SuperKey()], userInfo: encoder.userInfo)
            set(child.node, named: SuperKey.name)
            return child
        }

        mutating func superEncoder(forKey key: Key) -> any Swift.Encoder {
            let child = FirestoreValueEncoder(codingPath: codingPath + [key], userInfo: encoder.userInfo)
            set(child.node, for: key)
            return child
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: FirestoreValueEncoder
        let node: Node
        let codingPath: [any CodingKey]

        var count: Int {
            if case .unkeyed(let children) = node.content { return children.count }
            return 0
        }

        private var nextKey: any CodingKey { IndexKey(count) }

        private func append(_ child: Node) {
            guard case .unkeyed(var children) = node.content else { return }
            children.append(child)
            node.content = .unkeyed(children)
        }

        mutating func encodeNil() throws {
            let child = Node()
            child.content = .value(NSNull())
            append(child)
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            append(try encoder.child(value, at: codingPath + [nextKey]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = Node()
            child.content = .keyed([:])
            let path = codingPath + [nextKey]
            append(child)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, node: child, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = Node()
            child.content = .unkeyed([])
            let path = codingPath + [nextKey]
            append(child)
            return UnkeyedContainer(encoder: encoder, node: child, codingPath: path)
        }

        mutating func superEncoder() -> any Swift.Encoder {
            let child = FirestoreValueEncoder(codingPath: codingPath + [nextKey], userInfo: encoder.userInfo)
            append(child.node)
            return child
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: FirestoreValueEncoder
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { encoder.node.content = .value(NSNull()) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if let encoded = try FirestoreValueEncoder.encode(value, codingPath: codingPath, userInfo: encoder.userInfo) {
                encoder.node.content = .value(encoded)
            }
        }
    }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }

    init?(stringValue: String) { nil }

    init?(intValue: Int) { self.init(intValue) }
}

/// The coding key of a superclass's encoding (`superEncoder()` / `superDecoder()`): the field `super`.
struct SuperKey: CodingKey {
    static let name = "super"
    var stringValue: String { Self.name }
    var intValue: Int? { nil }

    init() {}
    init?(stringValue: String) { if stringValue != Self.name { return nil } }
    init?(intValue: Int) { nil }
}

/// The coding key of a map entry, on the paths the encoder builds for its messages.
private struct FieldNameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }

    init?(intValue: Int) { nil }
}
