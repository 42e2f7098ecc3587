import CairnModel
@testable import CairnLocalStore

/// The structure-aware mutations of the event-decoder fuzz suite: each case changes one to three records of the
/// seed log — a value's numbers set to boundary values at the sites ``FuzzSiteWalker`` finds, bits flipped,
/// values truncated, extended, nested deeper than the decoder allows or swapped between kinds, keys and kinds
/// replaced, records duplicated, dropped or reordered — and says what it did, for the failure message.
struct FuzzMutator {
    var random: SeededRandom

    /// Varint values at the edges: of one and two bytes, Int32, UInt32, 2^53, 2^62 (the LSN limit), Int64, UInt64.
    static let varints: [UInt64] = [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x3FFF, 0x4000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 1 << 32, 1 << 53,
        (1 << 62) - 1, 1 << 62, (1 << 63) - 1, 1 << 63, UInt64.max - 1, UInt64.max,
    ]
    /// Timestamp seconds and other 64-bit fields at the edges (Firestore's range is years 1...9999).
    static let int64s: [Int64] = [0, -1, 1, .min, .max, .min + 1, .max - 1, 253_402_300_800, -62_135_596_801, 1 << 62, -(1 << 62)]
    /// Nanoseconds, target ids and other 32-bit fields at the edges.
    static let int32s: [Int32] = [0, -1, 1, .min, .max, 999_999_999, 1_000_000_000, -1_000_000_000]

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Mutates `records` and describes the mutation.
    mutating func mutate(_ records: inout [FuzzCorpus.Record]) -> String {
        var notes: [String] = []
        for _ in 0..<(random.below(4) == 0 ? 1 + random.below(3) : 1) where !records.isEmpty {
            let index = random.below(records.count)
            let record = records[index]
            let note = "record \(index) (kind \(record.kind))"
            switch random.below(20) {
            case 0..<6:
                let sites = FuzzSiteWalker.sites(kind: record.kind, value: record.value)
                guard let site = sites.isEmpty ? nil : sites[random.below(sites.count)] else { continue }
                records[index].value = overwrite(record.value, at: site)
                notes.append("\(note): number at \(site.offset) (\(site.shape))")
            case 6, 7:
                var value = record.value
                for _ in 0...random.below(3) where !value.isEmpty { value[random.below(value.count)] ^= 1 << UInt8(random.below(8)) }
                records[index].value = value
                notes.append("\(note): bits flipped")
            case 8, 9:
                records[index].value = Array(record.value.prefix(random.below(record.value.count + 1)))
                notes.append("\(note): truncated to \(records[index].value.count) bytes")
            case 10:
                records[index].value += (0...random.below(12)).map { _ in random.below(2) == 0 ? 0xFF : UInt8(random.below(256)) }
                notes.append("\(note): extended")
            case 11:
                records[index].value = Self.deepDocument(value: record.value, depth: 90 + random.below(200), kind: random.below(3))
                notes.append("\(note): deeply nested document")
            case 12, 13:
                records[index].key = badKey(for: record)
                notes.append("\(note): key \(records[index].key)")
            case 14:
                records[index].kind = UInt8(random.below(11))
                notes.append("\(note): kind \(records[index].kind)")
            case 15 where random.below(2) == 0:
                records[index].value = records[random.below(records.count)].value
                notes.append("\(note): value of another record")
            case 15:
                // A saved target's query replaced by one no builder makes.
                guard let target = records.indices.filter({ records[$0].kind == 5 && records[$0].key.count == 5 }).randomElement(using: &random)
                else { continue }
                let query = oddQuery()
                let targetID = (try? records[target].key.withUnsafeBytes(TargetEvent.targetID)) ?? 2
                records[target].value = TargetEvent.saved(TargetData(targetID: targetID, query: query, expectedCount: Int.min)).value
                notes.append("record \(target) (kind 5): odd query \(query.target.canonicalID)")
            case 16:
                records.insert(record, at: index + random.below(records.count - index + 1))
                notes.append("\(note): duplicated")
            case 17:
                records.remove(at: index)
                notes.append("\(note): dropped")
            case 18:
                records.swapAt(index, random.below(records.count))
                notes.append("\(note): moved")
            default:
                var value = record.value
                for _ in 0...random.below(4) where value.count > 2 {
                    let site = FuzzSiteWalker.sites(kind: record.kind, value: value)
                    if let site = site.isEmpty ? nil : site[random.below(site.count)] { value = overwrite(value, at: site) }
                }
                records[index].value = value
                notes.append("\(note): several numbers")
            }
        }
        return notes.joined(separator: "; ")
    }

    /// A query no builder makes but the query format holds: a root or document path with filters, an empty
    /// collection group, operands of the wrong shape, empty field paths, empty composite filters, cursors
    /// longer than the order or of the wrong type, limits at the edge.
    private mutating func oddQuery() -> Query {
        let field = [FieldPath(segments: []), FieldPath(segments: ["age"]), FieldPath.documentKey, FieldPath(segments: ["nested", "n"])]
        let operands: [Value] = [.integer(1), .null, .array([]), .string("users/u1"), .double(.nan), .map(ObjectValue()),
                                 .reference(DatabaseID(projectID: "p"), key("users/u1"))]
        func pick<T>(_ items: [T]) -> T { items[random.below(items.count)] }
        var filters: [Filter] = (0..<random.below(3)).map { _ in
            .field(FieldFilter(pick(field), FilterOperator.allCases[random.below(FilterOperator.allCases.count)], pick(operands)))
        }
        if random.below(3) == 0 { filters.append(.composite(CompositeFilter(random.below(2) == 0 ? .and : .or, Array(filters.prefix(random.below(2)))))) }
        let paths = [ResourcePath(segments: []), ResourcePath(segments: ["users"]), ResourcePath(segments: ["users", "u1"]),
                     ResourcePath(segments: ["users", "u1", "x"])]
        let orderBy = (0..<random.below(3)).map { _ in OrderBy(pick(field), descending: random.below(2) == 0) }
        let bound = random.below(2) == 0 ? nil : Bound(position: (0..<random.below(4)).map { _ in pick(operands) }, inclusive: random.below(2) == 0)
        return Query(
            path: pick(paths), collectionGroup: pick([nil, nil, "", "users", "messages"]), filters: filters, explicitOrderBy: orderBy,
            limit: pick([nil, 1, Int.max, Int(Int32.max) + 1]), limitType: random.below(2) == 0 ? .first : .last,
            startAt: bound, endAt: random.below(3) == 0 ? bound : nil)
    }

    /// `value` with the number at `site` replaced by a boundary value (a varint may change length).
    private mutating func overwrite(_ value: [UInt8], at site: FuzzSite) -> [UInt8] {
        var value = value
        switch site.shape {
        case .varint:
            var end = site.offset
            while end < value.count && value[end] >= 0x80 && end - site.offset < 10 { end += 1 }
            end = min(end + 1, value.count)
            var replacement: [UInt8] = []
            if random.below(3) == 0 {
                replacement.appendSignedVarint(Self.int64s[random.below(Self.int64s.count)])
            } else {
                replacement.appendVarint(Self.varints[random.below(Self.varints.count)])
            }
            if random.below(8) == 0 { replacement = [UInt8](repeating: 0xFF, count: 10 + random.below(3)) }  // overlong
            value.replaceSubrange(site.offset..<end, with: replacement)
        case .int32:
            let number = Self.int32s[random.below(Self.int32s.count)]
            withUnsafeBytes(of: number.littleEndian) { put(Array($0), at: site.offset, in: &value) }
        case .int64:
            let number = Self.int64s[random.below(Self.int64s.count)]
            withUnsafeBytes(of: number.littleEndian) { put(Array($0), at: site.offset, in: &value) }
        }
        return value
    }

    private func put(_ bytes: [UInt8], at offset: Int, in value: inout [UInt8]) {
        for (i, byte) in bytes.enumerated() where offset + i < value.count { value[offset + i] = byte }
    }

    /// A remote-document value (the header of `value`, or a made-up one) holding `{"a": v}` where v nests
    /// `depth` arrays (kind 0), maps (1) or pending server timestamps with previous values (2).
    static func deepDocument(value: [UInt8], depth: Int, kind: Int) -> [UInt8] {
        var inner: [UInt8] = [0x00]
        for _ in 0..<depth {
            switch kind {
            case 0: inner = [0x0C, 0x01] + inner
            case 1:
                var wrapped: [UInt8] = [0x0D, 0x01, 0x01, 0x61]
                wrapped.appendVarint(UInt64(inner.count))
                inner = wrapped + inner
            default: inner = [0x07, 0x02, 0x00] + inner
            }
        }
        var document: [UInt8] = [0x01, 0x01, 0x01, 0x61]
        document.appendVarint(UInt64(inner.count))
        let header = value.count >= 27 ? Array(value.prefix(27)) : [0x01, 0x01, 0x00] + [UInt8](repeating: 0, count: 24)
        return header + document + inner
    }

    /// A damaged key of the record's key shape: document paths, target ids, batch ids at their edges.
    private mutating func badKey(for record: FuzzCorpus.Record) -> [UInt8] {
        switch record.kind {
        case 1, 2:
            let keys: [[UInt8]] = [
                Array("/".utf8), Array("a".utf8), Array("a/".utf8), Array("/a/b".utf8), Array("a//b/c".utf8),
                Array("a/b/c".utf8), [0xFF, 0x2F, 0x61], Array("a/\u{0}".utf8), Array("//".utf8), Array("a/b/".utf8),
                Array(String(repeating: "x/", count: 200).utf8) + [0x79],
            ]
            return keys[random.below(keys.count)]
        case 3, 4:
            let ids: [UInt64] = [0, 1, UInt64(Int.max), UInt64(Int.max) + 1, UInt64.max, 1 << 62, UInt64(Int32.max) + 1]
            var key: [UInt8] = [0x62]
            withUnsafeBytes(of: ids[random.below(ids.count)].bigEndian) { key.append(contentsOf: $0) }
            return random.below(6) == 0 ? Array(key.prefix(1 + random.below(8))) : key
        default:
            let ids: [UInt32] = [0, 1, 0x7FFF_FFFF, 0x7FFF_FFFE, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE]
            let id = ids[random.below(ids.count)]
            let key: [UInt8] = [0x74, UInt8(id >> 24), UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)]
            return random.below(6) == 0 ? Array(key.prefix(random.below(5))) + [0x74] : key
        }
    }
}
