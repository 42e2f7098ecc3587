// The manifest names the segments that make up the log, in replay order, and what is known about the sealed
// ones. It is small and rewritten whole on every change: written to MANIFEST.tmp, synced, renamed over
// MANIFEST, and the directory synced, so a crash leaves either the old or the new manifest.
//
//   manifest := magic "CAIRNMAN" (8) | formatVersion u32 | bodyLength u32 | body | crc u32
//               (crc: masked CRC32C of every byte before it)
//   body     := generation u64 | cacheID u64 | nextSegmentID u32 | lsnFloor u64 | segmentCount u32
//               | entry[segmentCount]
//   entry    := id u32 | state u8 (0 sealed, 1 active) | length u64 | recordCount u64 | recordBytes u64
//               | minLSN u64 | maxLSN u64
//
// Exactly the last entry is active. For sealed segments `length` is the exact file size; for the active one
// the fields are zero (recovery learns them by reading the segment). `lsnFloor` is a lower bound for the next
// log sequence number, so numbers never go backwards even when compaction removes the newest records.
// `cacheID` is a random number chosen when the log is created; every segment header repeats it, so a segment
// copied in from another log is caught on open. Every number is range-checked on decode (ids, lengths,
// counts, LSNs), so arithmetic on them cannot overflow.

struct Manifest: Equatable {
    struct Entry: Equatable {
        var id: UInt32
        var isActive: Bool
        var length: UInt64
        var recordCount: UInt64
        var recordBytes: UInt64
        var minLSN: UInt64
        var maxLSN: UInt64

        /// The entry of the active segment `id` (its numbers are not recorded).
        static func active(_ id: UInt32) -> Entry {
            Entry(id: id, isActive: true, length: 0, recordCount: 0, recordBytes: 0, minLSN: 0, maxLSN: 0)
        }

        /// What is out of range in a sealed entry's numbers (an active entry's are ignored), or nil. Records are
        /// at least 5 bytes, and LZ4 expands a frame's payload at most 255-fold.
        var rangeProblem: String? {
            guard !isActive else { return nil }
            if length < UInt64(SegmentFormat.segmentHeaderSize) || length > SegmentFormat.maxSegmentLength {
                return "length \(length) out of range"
            }
            if recordBytes > length * 256 { return "\(recordBytes) record bytes cannot fit in \(length) bytes" }
            if recordCount > recordBytes / 5 { return "\(recordCount) records cannot fit in \(recordBytes) record bytes" }
            if recordCount == 0 { return minLSN == 0 && maxLSN == 0 ? nil : "LSNs given for an empty segment" }
            if minLSN == 0 || minLSN > maxLSN || maxLSN >= SegmentFormat.lsnLimit { return "LSN range \(minLSN)...\(maxLSN) out of range" }
            return nil
        }
    }

    static let fileName = "MANIFEST"
    static let temporaryFileName = "MANIFEST.tmp"
    static let magic: [UInt8] = Array("CAIRNMAN".utf8)

    var generation: UInt64
    var cacheID: UInt64
    var nextSegmentID: UInt32
    var lsnFloor: UInt64
    var entries: [Entry]

    func encode() -> [UInt8] {
        var body: [UInt8] = []
        body.appendLE(generation)
        body.appendLE(cacheID)
        body.appendLE(nextSegmentID)
        body.appendLE(lsnFloor)
        body.appendLE(UInt32(entries.count))
        for entry in entries {
            body.appendLE(entry.id)
            body.append(entry.isActive ? 1 : 0)
            body.appendLE(entry.length)
            body.appendLE(entry.recordCount)
            body.appendLE(entry.recordBytes)
            body.appendLE(entry.minLSN)
            body.appendLE(entry.maxLSN)
        }
        var bytes = Manifest.magic
        bytes.appendLE(SegmentFormat.version)
        bytes.appendLE(UInt32(body.count))
        bytes.append(contentsOf: body)
        bytes.appendLE(Checksum.masked(bytes))
        return bytes
    }

    static func decode(_ bytes: [UInt8], path: String) throws -> Manifest {
        guard bytes.count >= 20, Array(bytes[0..<8]) == magic else {
            throw StorageError(.notALog, "MANIFEST is not a Cairn segment-log manifest", path: path, offset: 0)
        }
        return try bytes.withUnsafeBytes { raw in
            let version = loadLE(raw, 8, as: UInt32.self)
            let bodyLength = Int(loadLE(raw, 12, as: UInt32.self))
            guard bytes.count == 20 + bodyLength else {
                throw StorageError(
                    .corruption, "MANIFEST is \(bytes.count) bytes but its header says \(20 + bodyLength)", path: path)
            }
            let stored = loadLE(raw, 16 + bodyLength, as: UInt32.self)
            guard Checksum.masked(UnsafeRawBufferPointer(rebasing: raw[0..<(16 + bodyLength)])) == stored else {
                throw StorageError(.corruption, "MANIFEST checksum mismatch", path: path)
            }
            guard version >= 1 else {
                throw StorageError(.corruption, "MANIFEST has format version \(version), which never existed", path: path, offset: 8)
            }
            guard version == SegmentFormat.version else {
                throw StorageError(
                    .formatVersion,
                    "the log has format version \(version); this code reads version \(SegmentFormat.version)"
                        + (version < SegmentFormat.version ? " (version \(version) was written by an earlier development build)" : ""),
                    path: path, offset: 8)
            }
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[16..<(16 + bodyLength)]))
            func fail(_ what: String) -> StorageError {
                StorageError(.corruption, "MANIFEST body is malformed: \(what)", path: path)
            }
            guard let generation = reader.readLE(UInt64.self), let cacheID = reader.readLE(UInt64.self),
                let next = reader.readLE(UInt32.self), let floor = reader.readLE(UInt64.self),
                let count = reader.readLE(UInt32.self)
            else { throw fail("short header") }
            guard floor < SegmentFormat.lsnLimit else { throw fail("LSN floor \(floor) out of range") }
            guard count >= 1, Int(count) == reader.remaining / 45 else { throw fail("segment count \(count) does not match the body") }
            var entries: [Entry] = []
            entries.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                guard let id = reader.readLE(UInt32.self), let state = reader.readLE(UInt8.self),
                    let length = reader.readLE(UInt64.self), let records = reader.readLE(UInt64.self),
                    let recordBytes = reader.readLE(UInt64.self), let minLSN = reader.readLE(UInt64.self),
                    let maxLSN = reader.readLE(UInt64.self), state <= 1
                else { throw fail("bad segment entry") }
                let entry = Entry(id: id, isActive: state == 1, length: length, recordCount: records,
                                  recordBytes: recordBytes, minLSN: minLSN, maxLSN: maxLSN)
                if let problem = entry.rangeProblem { throw fail("entry \(index) (segment \(id)): \(problem)") }
                entries.append(entry)
            }
            guard reader.remaining == 0 else { throw fail("trailing bytes") }
            guard let last = entries.last, last.isActive, entries.dropLast().allSatisfy({ !$0.isActive }) else {
                throw fail("the last segment, and only it, must be active")
            }
            guard Set(entries.map(\.id)).count == entries.count, entries.allSatisfy({ $0.id >= 1 && $0.id < next }) else {
                throw fail("duplicate or out-of-range segment ids")
            }
            return Manifest(generation: generation, cacheID: cacheID, nextSegmentID: next, lsnFloor: floor, entries: entries)
        }
    }

    /// Replaces the manifest in `directory` atomically and durably.
    func write(to directory: String, fileSystem: any FileSystem) throws {
        let temporary = joinPath(directory, Manifest.temporaryFileName)
        if try fileSystem.exists(temporary) { try fileSystem.removeFile(at: temporary) }
        let handle = try fileSystem.open(temporary, .createNew)
        do {
            try handle.write(encode(), at: 0)
            try handle.sync()
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        try fileSystem.rename(temporary, to: joinPath(directory, Manifest.fileName))
        try fileSystem.syncDirectory(at: directory)
    }

    static func read(from directory: String, fileSystem: any FileSystem) throws -> Manifest {
        let path = joinPath(directory, fileName)
        let handle = try fileSystem.open(path, .readOnly)
        defer { try? handle.close() }
        return try decode(try handle.readAll(), path: path)
    }
}
