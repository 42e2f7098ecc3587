/// A pending user write as the cache keeps it: its id, its path and the **unresolved** overwrite or merge (server
/// values stay `.sv` placeholders, resolved again when the write is replayed after a restart).
package struct PersistedWrite: Equatable, Sendable {
    package let id: UInt64
    package let path: DatabasePath
    /// The node of an overwrite, nil for a merge.
    package let overwrite: Node?
    /// The children of a merge (paths relative to ``path``), nil for an overwrite.
    package let merge: [(DatabasePath, Node)]?

    package init(id: UInt64, path: DatabasePath, overwrite: Node) {
        self.id = id
        self.path = path
        self.overwrite = overwrite
        merge = nil
    }

    package init(id: UInt64, path: DatabasePath, merge: [(DatabasePath, Node)]) {
        self.id = id
        self.path = path
        overwrite = nil
        self.merge = merge
    }

    package static func == (a: PersistedWrite, b: PersistedWrite) -> Bool {
        var left = CacheBytesWriter(), right = CacheBytesWriter()
        a.write(to: &left)
        b.write(to: &right)
        return a.id == b.id && left.bytes == right.bytes
    }

    func write(to writer: inout CacheBytesWriter) {
        writer.string(path.description)
        if let overwrite {
            writer.byte(0)
            writer.node(overwrite)
        } else {
            writer.byte(1)
            writer.uint32(UInt32(merge?.count ?? 0))
            for (relative, node) in merge ?? [] {
                writer.string(relative.description)
                writer.node(node)
            }
        }
    }

    static func read(id: UInt64, from reader: inout CacheBytesReader) throws(PersistenceError) -> PersistedWrite {
        let path = try CacheRecord.path(try reader.string(), what: "the path of write \(id)")
        switch try reader.byte() {
        case 0:
            return PersistedWrite(id: id, path: path, overwrite: try reader.node())
        case 1:
            var children: [(DatabasePath, Node)] = []
            for _ in 0..<(try reader.count(minimumSize: 6)) {
                let relative = try CacheRecord.path(try reader.string(), what: "a child path of write \(id)")
                children.append((relative, try reader.node()))
            }
            return PersistedWrite(id: id, path: path, merge: children)
        case let tag:
            throw reader.failure("write kind \(tag) is neither an overwrite (0) nor a merge (1)")
        }
    }
}
