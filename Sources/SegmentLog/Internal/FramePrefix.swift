// Decoding the first records of a frame for a point read. The whole stored payload is read and its checksum
// verified, so every byte returned is as written; LZ4 then decompresses only as far as the record asked for
// (`LZ4_decompress_safe_partial`), and the frame cache keeps that prefix until a read needs a record beyond it.
// A record in the middle of a frame costs half the decompression, and a cached prefix half the memory.

extension FrameDecoding {
    /// Decodes the frame through record `index` (the whole frame when it is stored raw, when the record is
    /// its last, or when the prefix would be all of it): checksum first, then the records from the start up to
    /// `index`, each checked as a full decode checks it. Decompresses to where the record would end if the
    /// frame's records were all the same size, plus slack, and twice as far while that is short.
    static func decodePrefix(
        header: FrameHeader, stored: UnsafeRawBufferPointer, segment: UInt32, offset: UInt32, through index: Int
    ) -> Result<DecodedFrame, FrameProblem> {
        let recordCount = Int(header.recordCount)
        guard header.isCompressed, index + 1 < recordCount else {
            return decode(header: header, stored: stored, segment: segment, offset: offset)
        }
        guard stored.count == Int(header.storedLength) else { return .failure(FrameProblem("payload cut short")) }
        guard Checksum.masked(stored) == header.payloadCRC else { return .failure(FrameProblem("payload checksum mismatch")) }
        let rawLength = Int(header.rawLength)
        var target = rawLength / recordCount * (index + 2) + prefixSlack
        while target < rawLength {
            var decoded: Int?
            let raw = [UInt8](unsafeUninitializedCapacity: target) { buffer, initialized in
                decoded = LZ4.decompressPrefix(stored, into: UnsafeMutableRawBufferPointer(buffer))
                initialized = decoded ?? 0
            }
            // liblz4 before 1.9 refuses a prefix that ends inside a literal run or a match: the whole frame
            // decodes instead (and reports a payload that really does not decompress).
            guard decoded == target else { break }
            switch raw.withUnsafeBytes({ prefixStarts(in: $0, header: header, through: index) }) {
            case .failure(let problem):
                return .failure(problem)
            case .success(let starts?):
                return .success(
                    DecodedFrame(segment: segment, offset: offset, header: header, payload: raw, starts: starts, isComplete: false))
            case .success(nil):
                target *= 2
            }
        }
        return decode(header: header, stored: stored, segment: segment, offset: offset, checksumVerified: true)
    }

    /// Bytes decompressed beyond the estimated end of the record: a key and a small header's worth.
    static let prefixSlack = 256

    /// The start of records 0 through `index` of a payload prefix, plus the end of the last; nil when the
    /// prefix ends before that record does. A record that is there whole is checked as ``forEachRecord(in:header:segment:frameOffset:_:)``
    /// checks it.
    static func prefixStarts(in raw: UnsafeRawBufferPointer, header: FrameHeader, through index: Int) -> Result<[UInt32]?, FrameProblem> {
        var reader = ByteReader(raw)
        var starts: [UInt32] = []
        starts.reserveCapacity(index + 2)
        for record in 0...index {
            let start = reader.position
            guard reader.readLE(UInt8.self) != nil, let delta = reader.readVarint(), let keyCount = reader.readVarint(),
                let valueCount = reader.readVarint()
            else { return .success(nil) }
            guard keyCount > 0 else { return .failure(FrameProblem("record \(record) is malformed")) }
            guard keyCount <= UInt64(reader.remaining), valueCount <= UInt64(reader.remaining) - keyCount,
                reader.readSlice(Int(keyCount)) != nil, reader.readSlice(Int(valueCount)) != nil
            else { return .success(nil) }
            let lsn = unzigzag(delta, from: header.baseLSN)
            guard lsn > 0 && lsn < SegmentFormat.lsnLimit else {
                return .failure(FrameProblem("record \(record) has LSN \(lsn), out of range"))
            }
            starts.append(UInt32(start))
        }
        starts.append(UInt32(reader.position))
        return .success(starts)
    }
}
