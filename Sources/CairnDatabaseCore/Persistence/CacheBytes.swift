import Foundation

/// The byte form of the cache's record values: little-endian fixed integers, length-prefixed strings and a compact
/// node encoding. Every read is range-checked; a bad value is a ``PersistenceError`` `.corruptRecord`, never a
/// crash.
///
/// ```swift
/// var writer = CacheBytesWriter()
/// writer.uint64(7); writer.string("scores"); writer.node(node)
/// try writer.bytes.withUnsafeBytes { bytes in
///     var reader = CacheBytesReader(bytes, what: "a tracked query")
///     let id = try reader.uint64(); let path = try reader.string(); let back = try reader.node()
/// }
/// ```
struct CacheBytesWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        uint32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A node: tag 0 empty, 1 children (count, then key and node each), 2 bool, 3 int, 4 double, 5 string,
    /// 6 deferred server value (its JSON text); a priority follows any non-empty node (tag 0 for none).
    mutating func node(_ node: Node) {
        switch node.storage {
        case .max:
            byte(0)
            return
        case .children(let map):
            if map.isEmpty { return byte(0) }
            byte(1)
            uint32(UInt32(map.count))
            for (key, child) in map {
                string(key)
                self.node(child)
            }
        case .leaf(let leaf):
            switch leaf {
            case .bool(let value): byte(2); bool(value)
            case .int(let value): byte(3); uint64(UInt64(bitPattern: value))
            case .double(let value): byte(4); uint64(value.bitPattern)
            case .string(let value): byte(5); string(value)
            case .deferred(let value): byte(6); string(Node.canonicalJSON(value))
            }
        }
        self.node(node.storedPriority ?? .empty)
    }
}

/// The reader borrows the bytes (a record's value as the log hands it over, or an array's storage): it is used only
/// inside the closure that lends them, so replay decodes records without copying them.
struct CacheBytesReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// What is being decoded, for error messages ("the server data at /a"): built only for a message, so that
    /// replaying many records formats no text.
    private let what: () -> String

    init(_ bytes: UnsafeRawBufferPointer, what: @escaping @autoclosure () -> String) {
        self.bytes = bytes
        self.what = what
    }

    var isAtEnd: Bool { offset == bytes.count }

    func failure(_ problem: String) -> PersistenceError {
        PersistenceError(.corruptRecord, "\(what()) cannot be decoded: \(problem) (at byte \(offset) of \(bytes.count))")
    }

    mutating func byte() throws(PersistenceError) -> UInt8 {
        guard offset < bytes.count else { throw failure("the value ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bool() throws(PersistenceError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw failure("\(other) is not a boolean")
        }
    }

    mutating func uint32() throws(PersistenceError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw failure("the value ends early") }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << UInt32(8 * index) }
        offset += 4
        return value
    }

    mutating func uint64() throws(PersistenceError) -> UInt64 {
        guard bytes.count - offset >= 8 else { throw failure("the value ends early") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
        offset += 8
        return value
    }

    /// A count of items that each take at least `minimumSize` bytes, checked against what is left.
    mutating func count(minimumSize: Int) throws(PersistenceError) -> Int {
        let count = Int(try uint32())
        guard count <= (bytes.count - offset) / Swift.max(minimumSize, 1) else {
            throw failure("a count of \(count) does not fit in the \(bytes.count - offset) bytes left")
        }
        return count
    }

    mutating func string() throws(PersistenceError) -> String {
        let length = try count(minimumSize: 1)
        let slice = bytes[offset..<(offset + length)]
        offset += length
        guard let string = String(validating: slice, as: UTF8.self) else { throw failure("a string is not UTF-8") }
        return string
    }

    /// A node, at most ``Node/maxDepth`` levels of keys deep (and one more for a priority).
    mutating func node(depth: Int = 0) throws(PersistenceError) -> Node {
        guard depth <= Node.maxDepth + 1 else { throw failure("a node nests more than \(Node.maxDepth) levels") }
        let tag = try byte()
        let node: Node
        switch tag {
        case 0:
            return .empty
        case 1:
            let count = try count(minimumSize: 6)
            guard count > 0 else { throw failure("a children node without children") }
            var children: [NamedNode] = []
            children.reserveCapacity(count)
            for _ in 0..<count {
                let key = try string()
                do { try KeyValidation.validateKey(key) } catch { throw failure("the key \"\(key)\" is not valid") }
                let child = try self.node(depth: depth + 1)
                guard !child.isEmpty else { throw failure("the child \"\(key)\" is empty") }
                children.append(NamedNode(key, child))
            }
            node = Node(children: children)
        case 2: node = Node(leaf: .bool(try bool()))
        case 3: node = Node(leaf: .int(Int64(bitPattern: try uint64())))
        case 4:
            let value = Double(bitPattern: try uint64())
            guard value.isFinite else { throw failure("a number is not finite") }
            node = Node(leaf: .double(value))
        case 5: node = Node(leaf: .string(try string()))
        case 6:
            let text = try string()
            guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { throw failure("a server value is not JSON") }
            node = Node(leaf: .deferred(json))
        default:
            throw failure("unknown node tag \(tag)")
        }
        let priority = try self.node(depth: depth + 1)
        guard priority.isEmpty || priority.isLeaf else { throw failure("a priority is not a leaf") }
        return priority.isEmpty ? node : node.updatePriority(priority)
    }
}
