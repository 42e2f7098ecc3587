// Where the numbers are in an event value, for the fuzz suite's structure-aware mutations: the offsets of the
// varints (counts, lengths, zigzag integers, batch ids, timestamps) and of the fixed-width integers
// (timestamps, target ids) of each event kind, found by walking the formats of EventBytes.swift,
// DocumentCodec.swift and MutationCodec.swift. A walk stops quietly at the first byte it does not understand:
// damaged input only yields fewer sites.

/// A place in a value where a number is stored.
struct FuzzSite {
    enum Shape { case varint, int32, int64 }
    var offset: Int
    var shape: Shape
}

/// Walks event values and collects their number sites.
struct FuzzSiteWalker {
    let bytes: [UInt8]
    private(set) var sites: [FuzzSite] = []
    private var position = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number sites of a record value of `kind` (EventKind raw values).
    static func sites(kind: UInt8, value: [UInt8]) -> [FuzzSite] {
        var walker = FuzzSiteWalker(value)
        switch kind {
        case 1 where value.count >= 27:  // remoteDocumentChanged: header timestamps, then a document
            walker.sites += [FuzzSite(offset: 3, shape: .int64), FuzzSite(offset: 11, shape: .int32),
                             FuzzSite(offset: 15, shape: .int64), FuzzSite(offset: 23, shape: .int32)]
            walker.position = 27
            _ = walker.document()
        case 3:  // mutationBatchAdded: version, user string, batch
            walker.position = 1
            if walker.blob() { _ = walker.batch() }
        case 4 where value.count >= 14:  // mutationBatchRemoved (acknowledged): commit version
            walker.sites += [FuzzSite(offset: 2, shape: .int64), FuzzSite(offset: 10, shape: .int32)]
        case 5 where value.count >= 27:  // targetSaved: versions, resume token length, expected count
            walker.sites += [FuzzSite(offset: 3, shape: .int64), FuzzSite(offset: 11, shape: .int32),
                             FuzzSite(offset: 15, shape: .int64), FuzzSite(offset: 23, shape: .int32),
                             FuzzSite(offset: 27, shape: .varint)]
            walker.position = 27
            if walker.blob(), value[2] & 1 != 0 { walker.sites.append(FuzzSite(offset: walker.position, shape: .int64)) }
        case 8 where value.count >= 17:  // globalsChanged: version, highest target id, token and user counts
            walker.sites += [FuzzSite(offset: 1, shape: .int64), FuzzSite(offset: 9, shape: .int32),
                             FuzzSite(offset: 13, shape: .int32), FuzzSite(offset: 17, shape: .varint)]
            walker.position = 17
            if walker.blob() { _ = walker.varint() }
        default:
            break
        }
        // Anywhere else a varint may start: every offset after a byte that ends one.
        for offset in value.indices where offset == 0 || value[offset - 1] < 0x80 {
            walker.sites.append(FuzzSite(offset: offset, shape: .varint))
        }
        return walker.sites
    }

    @discardableResult
    private mutating func varint() -> UInt64? {
        sites.append(FuzzSite(offset: position, shape: .varint))
        var result: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            position += 1
            if shift < 64 { result |= UInt64(byte & 0x7F) << shift }
            if byte < 0x80 { return result }
        }
        return nil
    }

    private mutating func skip(_ count: UInt64?) -> Bool {
        guard let count, count <= UInt64(bytes.count - position) else { return false }
        position += Int(count)
        return true
    }

    private mutating func blob() -> Bool { skip(varint()) }

    private mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    /// A DocumentCodec document: version, map body.
    private mutating func document() -> Bool {
        guard byte() != nil else { return false }
        return mapBody()
    }

    private mutating func mapBody() -> Bool {
        guard let count = varint() else { return false }
        for _ in 0..<min(count, 1000) {
            guard blob(), varint() != nil, value() else { return false }
        }
        return true
    }

    private mutating func value() -> Bool {
        switch byte() {
        case 0, 1, 2: return true
        case 3: return varint() != nil
        case 4: return skip(8)
        case 5, 6: return varint() != nil && varint() != nil
        case 7: return varint() != nil && varint() != nil && value()
        case 8, 9: return blob()
        case 10:
            guard blob(), blob(), let count = varint() else { return false }
            for _ in 0..<min(count, 1000) where !blob() { return false }
            return true
        case 11: return skip(16)
        case 12:
            guard let count = varint() else { return false }
            for _ in 0..<min(count, 1000) where !value() { return false }
            return true
        case 13: return mapBody()
        default: return false
        }
    }

    /// A MutationCodec batch: version, batch id, write time, base mutations, mutations.
    private mutating func batch() -> Bool {
        guard byte() != nil, varint() != nil, varint() != nil, varint() != nil else { return false }
        for _ in 0..<2 {
            guard let count = varint() else { return false }
            for _ in 0..<min(count, 1000) where !mutation() { return false }
        }
        return true
    }

    private mutating func mutation() -> Bool {
        guard let kind = byte(), segments() else { return false }
        switch byte() {
        case 0, 1, 2: break
        case 3: guard varint() != nil, varint() != nil else { return false }
        default: return false
        }
        switch kind {
        case 1: return embeddedDocument() && transforms()
        case 2:
            guard embeddedDocument(), let count = varint() else { return false }
            for _ in 0..<min(count, 1000) where !segments() { return false }
            return transforms()
        default: return true
        }
    }

    private mutating func segments() -> Bool {
        guard let count = varint() else { return false }
        for _ in 0..<min(count, 1000) where !blob() { return false }
        return true
    }

    private mutating func embeddedDocument() -> Bool {
        guard let length = varint(), length <= UInt64(bytes.count - position) else { return false }
        let end = position + Int(length)
        _ = document()
        position = end
        return true
    }

    private mutating func transforms() -> Bool {
        guard let count = varint() else { return false }
        for _ in 0..<min(count, 1000) {
            guard segments(), let operation = byte() else { return false }
            if operation != 1 && !embeddedDocument() { return false }
        }
        return true
    }
}
