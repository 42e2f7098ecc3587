extension IndexKeyEncoder {
    /// The document key that ``appendDocumentKey(_:descending:)`` wrote at the start of `bytes` (the tail of
    /// an index entry's sort key, whose document key starts at a known offset); nil when the bytes are not such
    /// an encoding of a document path.
    ///
    /// ```swift
    /// var encoder = IndexKeyEncoder()
    /// encoder.appendDocumentKey(key, descending: true)
    /// encoder.bytes.withUnsafeBytes { IndexKeyEncoder.documentKey(decoding: $0, descending: true) }   // key
    /// ```
    package static func documentKey(decoding bytes: UnsafeRawBufferPointer, descending: Bool) -> DocumentKey? {
        let flip: UInt8 = descending ? 0xFF : 0x00
        var segments: [String] = []
        var segment: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let label = bytes[i] ^ flip
            i += 1
            if label == IndexLabel.end {
                guard !segments.isEmpty, segments.count.isMultiple(of: 2) else { return nil }
                return DocumentKey(path: ResourcePath(segments: segments))
            }
            if label == IndexLabel.numericSegment {
                i += 8
            } else if label != IndexLabel.segment {
                return nil
            }
            // escaped(bytes): 00 FF is 0x00, FF 00 is 0xFF, 00 01 ends the segment.
            segment.removeAll(keepingCapacity: true)
            escaped: while true {
                guard i < bytes.count else { return nil }
                let byte = bytes[i] ^ flip
                i += 1
                guard byte == 0x00 || byte == 0xFF else {
                    segment.append(byte)
                    continue
                }
                guard i < bytes.count else { return nil }
                let next = bytes[i] ^ flip
                i += 1
                switch (byte, next) {
                case (0x00, 0x01): break escaped
                case (0x00, 0xFF): segment.append(0x00)
                case (0xFF, 0x00): segment.append(0xFF)
                default: return nil
                }
            }
            segments.append(String(decoding: segment, as: UTF8.self))
        }
        return nil
    }
}
