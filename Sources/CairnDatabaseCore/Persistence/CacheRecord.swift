/// The records of the Realtime Database cache on the segment log (Docs/Database.md, "On disk"). Each record's key
/// names what it is about (`s/a/b` server data at a path, `q`/`k` plus a tracked query id, `w` plus a write id,
/// `globals`); each value starts with a format version byte (``formatVersion``), then the fields below.
///
/// | kind | record | key | value |
/// |---|---|---|---|
/// | 1 | server overwrite | `s` + path | the node (a merge is split into one overwrite per child) |
/// | 2 | server pruned | `s` + path | nothing: the data at and below the path is unknown again |
/// | 3 | tracked query saved | `q` + id | path, parameters, complete, active (last use: the record's LSN) |
/// | 4 | tracked query removed | `q` + id | nothing (also ends the query's tracked keys) |
/// | 5 | tracked keys changed | `k` + id | the full set of child keys in the query's window |
/// | 6 | user write added | `w` + id | path, then the unresolved overwrite node or merge children |
/// | 7 | user write removed | `w` + id | nothing (acknowledged or rejected) |
/// | 8 | globals | `globals` | the session number |
///
/// ```swift
/// let (kind, key, value) = CacheRecord.serverOverwrite(path, node).encoded()
/// let back = try CacheRecord.decode(kind: kind, key: key, value: value)
/// ```
package enum CacheRecord: Equatable {
    case serverOverwrite(DatabasePath, Node)
    case serverPruned(DatabasePath)
    case trackedQuerySaved(id: UInt64, query: QuerySpec, isComplete: Bool, isActive: Bool)
    case trackedQueryRemoved(id: UInt64)
    case trackedKeysChanged(id: UInt64, keys: Set<String>)
    case userWriteAdded(PersistedWrite)
    case userWriteRemoved(id: UInt64)
    case globals(session: UInt64)

    package enum Kind: UInt8, CaseIterable {
        case serverOverwrite = 1, serverPruned, trackedQuerySaved, trackedQueryRemoved, trackedKeysChanged
        case userWriteAdded, userWriteRemoved, globals
    }

    /// The version byte every value starts with.
    package static let formatVersion: UInt8 = 1

    package static func == (a: CacheRecord, b: CacheRecord) -> Bool {
        a.encoded() == b.encoded()
    }

    // MARK: Keys

    package static func serverKey(_ path: DatabasePath) -> [UInt8] { Array(("s" + path.description).utf8) }
    package static func queryKey(_ id: UInt64) -> [UInt8] { idKey("q", id) }
    package static func keysKey(_ id: UInt64) -> [UInt8] { idKey("k", id) }
    package static func writeKey(_ id: UInt64) -> [UInt8] { idKey("w", id) }
    package static let globalsKey = Array("globals".utf8)

    private static func idKey(_ prefix: Character, _ id: UInt64) -> [UInt8] {
        [prefix.asciiValue!] + (0..<8).map { UInt8(truncatingIfNeeded: id >> UInt64(56 - 8 * $0)) }
    }

    // MARK: Encoding

    package func encoded() -> (kind: Kind, key: [UInt8], value: [UInt8]) {
        var writer = CacheBytesWriter()
        writer.byte(CacheRecord.formatVersion)
        switch self {
        case .serverOverwrite(let path, let node):
            writer.node(node)
            return (.serverOverwrite, CacheRecord.serverKey(path), writer.bytes)
        case .serverPruned(let path):
            return (.serverPruned, CacheRecord.serverKey(path), writer.bytes)
        case .trackedQuerySaved(let id, let query, let isComplete, let isActive):
            writer.string(query.path.description)
            StoredQueryParams.write(query.params, to: &writer)
            writer.bool(isComplete)
            writer.bool(isActive)
            return (.trackedQuerySaved, CacheRecord.queryKey(id), writer.bytes)
        case .trackedQueryRemoved(let id):
            return (.trackedQueryRemoved, CacheRecord.queryKey(id), writer.bytes)
        case .trackedKeysChanged(let id, let keys):
            writer.uint32(UInt32(keys.count))
            for key in keys.sorted() { writer.string(key) }
            return (.trackedKeysChanged, CacheRecord.keysKey(id), writer.bytes)
        case .userWriteAdded(let write):
            write.write(to: &writer)
            return (.userWriteAdded, CacheRecord.writeKey(write.id), writer.bytes)
        case .userWriteRemoved(let id):
            return (.userWriteRemoved, CacheRecord.writeKey(id), writer.bytes)
        case .globals(let session):
            writer.uint64(session)
            return (.globals, CacheRecord.globalsKey, writer.bytes)
        }
    }

    // MARK: Decoding

    /// Decodes a record; a bad kind, key or value is a ``PersistenceError``, never a crash.
    package static func decode(kind: UInt8, key: [UInt8], value: [UInt8]) throws(PersistenceError) -> CacheRecord {
        var result: Result<CacheRecord, PersistenceError>?
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                result = Result { () throws(PersistenceError) in try decode(kind: kind, key: key, value: value) }
            }
        }
        return try result!.get()
    }

    /// Decodes a record from borrowed bytes (a ``RecordView``'s, while the log lends them): nothing is copied
    /// but the decoded fields.
    package static func decode(kind rawKind: UInt8, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(PersistenceError) -> CacheRecord {
        guard let kind = Kind(rawValue: rawKind) else {
            throw PersistenceError(.corruptRecord, "record kind \(rawKind) is not a Realtime Database cache record")
        }
        var reader = CacheBytesReader(value, what: "the \(kind) record \(describe(key))")
        let version = try reader.byte()
        guard version == formatVersion else {
            throw PersistenceError(.unsupportedVersion, "the \(kind) record \(describe(key)) has format version \(version); this build reads version \(formatVersion)")
        }
        let record: CacheRecord
        switch kind {
        case .serverOverwrite: record = .serverOverwrite(try serverPath(key), try reader.node())
        case .serverPruned: record = .serverPruned(try serverPath(key))
        case .trackedQuerySaved:
            let id = try self.id(key, prefix: "q")
            let path = try self.path(try reader.string(), what: "the path of tracked query \(id)")
            let params = try StoredQueryParams.read(from: &reader)
            record = .trackedQuerySaved(id: id, query: QuerySpec(path: path, params: params),
                                        isComplete: try reader.bool(), isActive: try reader.bool())
        case .trackedQueryRemoved: record = .trackedQueryRemoved(id: try id(key, prefix: "q"))
        case .trackedKeysChanged:
            let id = try self.id(key, prefix: "k")
            var keys = Set<String>()
            for _ in 0..<(try reader.count(minimumSize: 5)) {
                let child = try reader.string()
                do { try KeyValidation.validateKey(child) } catch { throw reader.failure("the key \"\(child)\" is not valid") }
                keys.insert(child)
            }
            record = .trackedKeysChanged(id: id, keys: keys)
        case .userWriteAdded: record = .userWriteAdded(try PersistedWrite.read(id: try id(key, prefix: "w"), from: &reader))
        case .userWriteRemoved: record = .userWriteRemoved(id: try id(key, prefix: "w"))
        case .globals:
            guard key.elementsEqual(globalsKey) else { throw PersistenceError(.corruptRecord, "a globals record has the key \(describe(key))") }
            record = .globals(session: try reader.uint64())
        }
        guard reader.isAtEnd else { throw reader.failure("bytes follow the record's last field") }
        return record
    }

    /// The path a server record's key names.
    package static func serverPath<Key: Collection<UInt8>>(_ key: Key) throws(PersistenceError) -> DatabasePath {
        guard key.first == UInt8(ascii: "s"), let text = String(validating: key.dropFirst(), as: UTF8.self) else {
            throw PersistenceError(.corruptRecord, "\(describe(key)) is not the key of server data")
        }
        return try path(text, what: "the server data key \(describe(key))")
    }

    static func path(_ text: String, what: @autoclosure () -> String) throws(PersistenceError) -> DatabasePath {
        guard text.hasPrefix("/") else { throw PersistenceError(.corruptRecord, "\(what()) is not a path: \(text)") }
        if text == "/" { return .root }
        do throws(DatabaseCoreError) {
            // Canonical form (what `description` gives back): no empty key, so no `//` and no `/` at the end;
            // checked on the bytes, without building the text again.
            var previous = UInt8(ascii: "/")
            for byte in text.utf8.dropFirst() {
                guard !(byte == UInt8(ascii: "/") && previous == byte) else { throw DatabaseCoreError(.invalidPath, "not in canonical form") }
                previous = byte
            }
            guard previous != UInt8(ascii: "/") else { throw DatabaseCoreError(.invalidPath, "not in canonical form") }
            return try DatabasePath(String(text.dropFirst()))
        } catch {
            throw PersistenceError(.corruptRecord, "\(what()) is not a valid path (\(text)): \(error.message)")
        }
    }

    /// The id an id key (`q`, `k` or `w` and 8 big-endian bytes) names: 1 to `Int.max` (ids count up from 1).
    package static func id<Key: Collection<UInt8>>(_ key: Key, prefix: Character) throws(PersistenceError) -> UInt64 {
        guard key.count == 9, key.first == prefix.asciiValue! else {
            throw PersistenceError(.corruptRecord, "\(describe(key)) is not a \(prefix) key (a letter and 8 bytes)")
        }
        let id = key.dropFirst().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard id >= 1, id <= UInt64(Int.max) else {
            throw PersistenceError(.corruptRecord, "the id \(id) of \(describe(key)) is out of range (1 to \(Int.max))")
        }
        return id
    }

    /// A key for messages: the text when it is printable, else hex.
    static func describe<Key: Collection<UInt8>>(_ key: Key) -> String {
        if key.count == 9, let first = key.first, "qkw".utf8.contains(first) {
            return "\(Character(UnicodeScalar(first)))\(key.dropFirst().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })"
        }
        if let text = String(validating: key, as: UTF8.self), text.unicodeScalars.allSatisfy({ $0.value >= 32 }) { return text }
        return key.map { String($0, radix: 16) }.joined(separator: " ")
    }
}
