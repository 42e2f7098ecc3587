import Testing
@testable import CairnModel

@Suite("Document codec on damaged input")
struct CorruptDocumentCodecTests: ValueFixtures {
    /// Decodes `bytes` both ways and reports whether anything threw; any error must be `dataLoss`.
    @discardableResult
    func decodeSurvives(_ bytes: [UInt8], path fieldPath: FieldPath) -> Bool {
        var threw = false
        do { _ = try DocumentCodec.decode(bytes) } catch {
            threw = true
            #expect(error.code == .dataLoss)
        }
        do { _ = try bytes.withUnsafeBytes { try DocumentCodec.value(at: fieldPath, in: $0) } } catch {
            #expect((error as? ModelError)?.code == .dataLoss)
        }
        return threw
    }

    func expectDataLoss(_ bytes: [UInt8], mentioning phrase: String) {
        #expect {
            try DocumentCodec.decode(bytes)
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .dataLoss && error.message.contains(phrase)
        }
    }

    @Test("a newer format version is refused with a message that says so")
    func newerVersion() {
        expectDataLoss([0x02, 0x00], mentioning: "newer Cairn")
        expectDataLoss([0xFF], mentioning: "format version 255")
    }

    @Test("empty input, version 0 and trailing bytes are refused")
    func framing() {
        expectDataLoss([], mentioning: "format version")
        expectDataLoss([0x00, 0x00], mentioning: "not a Cairn document")
        expectDataLoss([0x01, 0x00, 0x00], mentioning: "unexpected bytes after the document")
    }

    @Test("lengths and counts larger than the input are refused before anything is allocated")
    func absurdLengths() {
        // 2^63 - 1 map entries; a string of 2^62 bytes; an array of 2^32 - 1 values; an 11-byte varint.
        expectDataLoss([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], mentioning: "exceeds")
        let hugeString: [UInt8] = [0x01, 0x01, 0x01, 0x61, 0x0A, 0x08] + Array(repeating: 0x80, count: 8) + [0x40]
        expectDataLoss(hugeString, mentioning: "exceeds")
        expectDataLoss([0x01, 0x01, 0x01, 0x61, 0x06, 0x0C, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], mentioning: "exceeds")
        expectDataLoss([0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02], mentioning: "overflows")
    }

    @Test("keys out of order or repeated, a wrong value length, an unknown tag and invalid UTF-8 are refused")
    func structuralDamage() {
        expectDataLoss([0x01, 0x02, 0x01, 0x62, 0x01, 0x00, 0x01, 0x61, 0x01, 0x00], mentioning: "out of UTF-8 order")
        expectDataLoss([0x01, 0x02, 0x01, 0x61, 0x01, 0x00, 0x01, 0x61, 0x01, 0x00], mentioning: "repeated")
        expectDataLoss([0x01, 0x01, 0x01, 0x61, 0x02, 0x00, 0x00], mentioning: "does not match")
        expectDataLoss([0x01, 0x01, 0x01, 0x61, 0x01, 0x0E], mentioning: "unknown value tag 14")
        expectDataLoss([0x01, 0x01, 0x01, 0xFF, 0x01, 0x00], mentioning: "invalid UTF-8")
        expectDataLoss([0x01, 0x01, 0x01, 0x61, 0x04, 0x08, 0x02, 0xF0, 0x90], mentioning: "invalid UTF-8")
    }

    @Test("a reference path with an odd number of segments is refused rather than trapping")
    func oddReference() {
        // {"a": reference p/d with 1 segment "x"}
        let bytes: [UInt8] = [0x01, 0x01, 0x01, 0x61, 0x08, 0x0A, 0x01, 0x70, 0x01, 0x64, 0x01, 0x01, 0x78]
        expectDataLoss(bytes, mentioning: "even number")
    }

    @Test("nanoseconds outside Int32 are refused")
    func nanosecondsRange() {
        // timestamp seconds 0, nanoseconds zigzag(2^32)
        expectDataLoss([0x01, 0x01, 0x01, 0x61, 0x07, 0x05, 0x00, 0x80, 0x80, 0x80, 0x80, 0x20], mentioning: "32-bit")
    }

    @Test("nesting deeper than maxNestingDepth is refused instead of exhausting the stack")
    func tooDeep() {
        var value = Value.null
        for _ in 0...DocumentCodec.maxNestingDepth { value = .array([value]) }
        expectDataLoss(DocumentCodec.encode(ObjectValue(["a": value])), mentioning: "nested deeper")
        // Half a million nested one-element arrays must fail at the depth bound, not recurse half a million times.
        var garbage: [UInt8] = [0x01, 0x01, 0x01, 0x61, 0x7F]
        for _ in 0..<500_000 { garbage += [0x0C, 0x01] }
        expectDataLoss(garbage, mentioning: "nested deeper")
        decodeSurvives(garbage, path: path("a"))
    }

    @Test("every truncation of valid encodings throws dataLoss")
    func truncations() {
        var generator = ValueGenerator(seed: 41)
        for _ in 0..<40 {
            let bytes = DocumentCodec.encode(generator.object(depth: 3, maxCount: 4))
            for length in 0..<bytes.count {
                #expect(decodeSurvives(Array(bytes[..<length]), path: generator.fieldPath()))
            }
        }
    }

    @Test("every single-bit flip of valid encodings throws dataLoss or decodes to some value, never traps")
    func bitFlips() {
        var generator = ValueGenerator(seed: 42)
        for _ in 0..<25 {
            let bytes = DocumentCodec.encode(generator.object(depth: 3, maxCount: 4))
            for index in bytes.indices {
                for bit in 0..<8 {
                    var damaged = bytes
                    damaged[index] ^= 1 << bit
                    decodeSurvives(damaged, path: generator.fieldPath())
                }
            }
        }
    }

    @Test("random garbage never traps")
    func randomGarbage() {
        var random = SeededRandom(seed: 43)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...64, using: &random)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            if !bytes.isEmpty, Bool.random(using: &random) { bytes[0] = DocumentCodec.formatVersion }
            if bytes.count > 1, Bool.random(using: &random) { bytes[1] = UInt8.random(in: 0...3, using: &random) }
            decodeSurvives(bytes, path: path("a"))
        }
    }
}
