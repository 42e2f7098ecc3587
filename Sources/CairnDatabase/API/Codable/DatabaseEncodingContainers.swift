import Foundation

/// The keyed container of ``DatabaseValueEncoder``: an object whose keys follow the key encoding strategy.
struct DatabaseKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    typealias Node = DatabaseValueEncoder.Node
    let encoder: DatabaseValueEncoder
    let node: Node
    let codingPath: [any CodingKey]

    private func set(_ child: Node, at path: [any CodingKey]) {
        guard case .keyed(var children) = node.content else { return }
        children[encoder.options.name(at: path)] = child
        node.content = .keyed(children)
    }

    mutating func encodeNil(forKey key: Key) throws { set(DatabaseValueEncoder.nullNode(), at: codingPath + [key]) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let path = codingPath + [key]
        set(try encoder.child(value, at: path), at: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = Node()
        child.content = .keyed([:])
        let path = codingPath + [key]
        set(child, at: path)
        return KeyedEncodingContainer(DatabaseKeyedEncodingContainer<NestedKey>(encoder: encoder, node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node()
        child.content = .unkeyed([])
        let path = codingPath + [key]
        set(child, at: path)
        return DatabaseUnkeyedEncodingContainer(encoder: encoder, node: child, codingPath: path)
    }

    /// The superclass's encoding, in an object under the key `super` (as Foundation's JSONEncoder does).
    mutating func superEncoder() -> any Swift.Encoder {
        let path = codingPath + [DatabaseCodingKeys.Super()]
        let child = DatabaseValueEncoder(codingPath: path, options: encoder.options)
        set(child.node, at: path)
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Swift.Encoder {
        let path = codingPath + [key]
        let child = DatabaseValueEncoder(codingPath: path, options: encoder.options)
        set(child.node, at: path)
        return child
    }
}

/// The unkeyed container of ``DatabaseValueEncoder``: an array.
struct DatabaseUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    typealias Node = DatabaseValueEncoder.Node
    let encoder: DatabaseValueEncoder
    let node: Node
    let codingPath: [any CodingKey]

    var count: Int {
        if case .unkeyed(let children) = node.content { return children.count }
        return 0
    }

    private var nextPath: [any CodingKey] { codingPath + [DatabaseCodingKeys.Index(count)] }

    private func append(_ child: Node) {
        guard case .unkeyed(var children) = node.content else { return }
        children.append(child)
        node.content = .unkeyed(children)
    }

    mutating func encodeNil() throws { append(DatabaseValueEncoder.nullNode()) }

    mutating func encode<T: Encodable>(_ value: T) throws { append(try encoder.child(value, at: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        child.content = .keyed([:])
        let path = nextPath
        append(child)
        return KeyedEncodingContainer(DatabaseKeyedEncodingContainer<NestedKey>(encoder: encoder, node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Node()
        child.content = .unkeyed([])
        let path = nextPath
        append(child)
        return DatabaseUnkeyedEncodingContainer(encoder: encoder, node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Swift.Encoder {
        let child = DatabaseValueEncoder(codingPath: nextPath, options: encoder.options)
        append(child.node)
        return child
    }
}
