/// Query parameters in a tracked-query record: the index, the start and end bounds (value, optional key,
/// exclusive), and the limit with its anchor. Reading rebuilds them through ``QueryParams``' own builders, so a
/// stored query that the API could not have built is an error, not a query the sync tree was never tested with.
enum StoredQueryParams {
    static func write(_ params: QueryParams, to writer: inout CacheBytesWriter) {
        writer.string(params.index.description)
        for bound in [params.start, params.end] {
            guard let bound else {
                writer.bool(false)
                continue
            }
            writer.bool(true)
            writeScalar(bound.value, to: &writer)
            writer.bool(bound.name != nil)
            if let name = bound.name { writer.string(name) }
            writer.bool(bound.isExclusive)
        }
        writer.bool(params.limit != nil)
        if let limit = params.limit {
            writer.uint32(UInt32(limit))
            writer.byte(params.isViewFromLeft ? 0 : 1)
        }
    }

    static func read(from reader: inout CacheBytesReader) throws(PersistenceError) -> QueryParams {
        let indexName = try reader.string()
        var params = QueryParams()
        do {
            params = try params.orderedBy(try index(indexName, reader))
            if try reader.bool() {
                let (value, name, exclusive) = try bound(&reader)
                params = exclusive ? try params.starting(after: value, childKey: name == KeyOrder.maxName ? nil : name)
                    : try params.starting(at: value, childKey: name)
            }
            if try reader.bool() {
                let (value, name, exclusive) = try bound(&reader)
                params = exclusive ? try params.ending(before: value, childKey: name == KeyOrder.minName ? nil : name)
                    : try params.ending(at: value, childKey: name)
            }
            if try reader.bool() {
                let limit = Int(try reader.uint32())
                params = try reader.byte() == 0 ? try params.limited(toFirst: limit) : try params.limited(toLast: limit)
            }
        } catch let error as PersistenceError {
            throw error
        } catch let error as DatabaseCoreError {
            throw reader.failure("the query parameters are not valid: \(error.message)")
        } catch {
            throw reader.failure("\(error)")
        }
        return params
    }

    private static func index(_ name: String, _ reader: CacheBytesReader) throws(PersistenceError) -> DatabaseIndex {
        switch name {
        case ".priority": return .priority
        case ".key": return .key
        case ".value": return .value
        default:
            guard let path = try? DatabasePath(name), !path.isEmpty else { throw reader.failure("\(name) is not an index") }
            return .child(path)
        }
    }

    private static func bound(_ reader: inout CacheBytesReader) throws(PersistenceError) -> (JSONValue, String?, Bool) {
        let value = try readScalar(&reader)
        let name = try reader.bool() ? try reader.string() : nil
        return (value, name, try reader.bool())
    }

    /// A bound's value: 0 null, 2 bool, 3 int, 4 double, 5 string (the node tags).
    private static func writeScalar(_ value: JSONValue, to writer: inout CacheBytesWriter) {
        switch value {
        case .bool(let flag): writer.byte(2); writer.bool(flag)
        case .int(let number): writer.byte(3); writer.uint64(UInt64(bitPattern: number))
        case .double(let number): writer.byte(4); writer.uint64(number.bitPattern)
        case .string(let text): writer.byte(5); writer.string(text)
        case .null, .array, .object: writer.byte(0)
        }
    }

    private static func readScalar(_ reader: inout CacheBytesReader) throws(PersistenceError) -> JSONValue {
        switch try reader.byte() {
        case 0: return .null
        case 2: return .bool(try reader.bool())
        case 3: return .int(Int64(bitPattern: try reader.uint64()))
        case 4: return .double(Double(bitPattern: try reader.uint64()))
        case 5: return .string(try reader.string())
        case let tag: throw reader.failure("unknown bound tag \(tag)")
        }
    }
}
