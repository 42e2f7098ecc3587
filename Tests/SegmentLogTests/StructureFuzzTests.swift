import CLZ4
import CairnTestSupport
import Foundation
import Testing
@testable import SegmentLog

/// Structure-aware fuzzing of everything SegmentLog reads from disk: MANIFEST fields, segment headers, frame
/// headers and record payloads are mutated with boundary values and the checksums recomputed, so the values
/// reach the parsers instead of stopping at a checksum. Every case opens (writable and read-only), scans,
/// verifies, inspects and salvages; a trap fails the run, and every error must be a `StorageError` with a
/// message. `CAIRN_FUZZ_ITERATIONS` sets the number of cases (default 300); seeds are deterministic.
@Suite("Structure fuzz")
struct StructureFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["CAIRN_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 300

    /// The files of a log with sealed segments, a compaction output, a multi-frame batch and an active segment.
    static let base: [String: [UInt8]] = {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.segmentTargetSize = 4096
        let log = try! SegmentLog.open(at: "/db", configuration: configuration)
        var random = SeededRandom(seed: 900)
        var locations: [RecordLocation] = []
        for i in 0..<30 {
            var batch = WriteBatch()
            for j in 0..<(i % 7 == 0 ? 12 : 2) {
                batch.append(kind: UInt8(i % 5), key: bytes("k\(i % 11).\(j)"), value: documentValue(i, size: 60 + 40 * j, using: &random))
            }
            locations += try! log.commit(batch)
        }
        for location in locations.prefix(20) { log.retire(location) }
        if let victim = log.compactionCandidates(minimumDeadRatio: 0.1).first {
            let compaction = try! log.makeCompaction(of: [victim], clusterByKey: true) { _ in true }
            while try! compaction.step() == nil {}
        }
        try! log.append(kind: 9, key: bytes("last"), value: bytes("active"))
        try! log.close()
        var files: [String: [UInt8]] = [:]
        for name in fs.fileNames(in: "/db") { files["/db/" + name] = fs.bytes(of: "/db/" + name) }
        return files
    }()

    /// Values that sit on the edges parsers must check.
    static func interesting(_ random: inout SeededRandom, width: Int) -> UInt64 {
        let top = width == 8 ? UInt64.max : (UInt64(1) << UInt64(width * 8)) - 1
        let choices: [UInt64] = [
            0, 1, 2, 27, 28, 29, 40, 0x7F, 0x80, 0xFF, 0xFFFF, UInt64(SegmentFormat.maxFramePayload),
            UInt64(SegmentFormat.maxFramePayload) + 1, SegmentFormat.lsnLimit - 1, SegmentFormat.lsnLimit,
            1 << 63, UInt64.max - 1, UInt64.max, random.next(),
        ]
        let value = choices[Int(random.next() % UInt64(choices.count))]
        return random.next() % 4 == 0 ? value & top : min(value, top) &+ (random.next() % 3 == 0 ? 1 : 0) & top
    }

    static func store(_ value: UInt64, width: Int, at offset: Int, in bytes: inout [UInt8]) {
        guard offset >= 0, offset + width <= bytes.count else { return }
        for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> UInt64(8 * i)) }
    }

    static func load(_ bytes: [UInt8], _ offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<width where offset + i < bytes.count { value |= UInt64(bytes[offset + i]) << UInt64(8 * i) }
        return value
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt64 { UInt64(Checksum.masked(Array(bytes))) }

    /// The frames of a segment file, by walking the length fields (no checks: the base log is intact).
    static func frames(_ segment: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var at = SegmentFormat.segmentHeaderSize
        while at + SegmentFormat.frameHeaderSize <= segment.count, load(segment, at, width: 4) == UInt64(SegmentFormat.frameMagic) {
            offsets.append(at)
            at += SegmentFormat.frameHeaderSize + Int(load(segment, at + 8, width: 4))
        }
        return offsets
    }

    static func resealFrameHeader(_ segment: inout [UInt8], at frame: Int) {
        store(crc(segment[frame..<(frame + 36)]), width: 4, at: frame + 36, in: &segment)
    }

    /// Mutates one structure of `files` and fixes its checksums; returns what was done.
    static func mutate(_ files: inout [String: [UInt8]], _ random: inout SeededRandom) -> String {
        let segments = files.keys.filter { $0.hasSuffix(".seg") }.sorted()
        switch random.next() % 5 {
        case 0:  // a MANIFEST field, CRC recomputed
            var manifest = files["/db/MANIFEST"]!
            let count = (manifest.count - 52) / 45
            var fields: [(Int, Int)] = [(8, 4), (12, 4), (16, 8), (24, 8), (32, 4), (36, 8), (44, 4)]
            for entry in 0..<max(count, 0) {
                let at = 48 + 45 * entry
                fields += [(at, 4), (at + 4, 1), (at + 5, 8), (at + 13, 8), (at + 21, 8), (at + 29, 8), (at + 37, 8)]
            }
            let (offset, width) = fields[Int(random.next() % UInt64(fields.count))]
            store(interesting(&random, width: width), width: width, at: offset, in: &manifest)
            let body = Int(load(manifest, 12, width: 4))
            if 16 + body + 4 <= manifest.count { store(crc(manifest[0..<(16 + body)]), width: 4, at: 16 + body, in: &manifest) }
            files["/db/MANIFEST"] = manifest
            return "manifest field at \(offset)"
        case 1:  // a segment header field, CRC recomputed
            let path = segments[Int(random.next() % UInt64(segments.count))]
            var segment = files[path]!
            let (offset, width) = [(8, 4), (12, 4), (16, 8)][Int(random.next() % 3)]
            store(interesting(&random, width: width), width: width, at: offset, in: &segment)
            store(crc(segment[0..<24]), width: 4, at: 24, in: &segment)
            files[path] = segment
            return "\(path) header field at \(offset)"
        case 2:  // a frame header field, header CRC recomputed
            let path = segments[Int(random.next() % UInt64(segments.count))]
            var segment = files[path]!
            let frames = frames(segment)
            guard let frame = frames.isEmpty ? nil : frames[Int(random.next() % UInt64(frames.count))] else { return "no frame" }
            let (offset, width) = [(4, 1), (5, 1), (8, 4), (12, 4), (16, 8), (24, 4), (28, 4), (32, 4)][Int(random.next() % 8)]
            store(interesting(&random, width: width), width: width, at: frame + offset, in: &segment)
            resealFrameHeader(&segment, at: frame)
            files[path] = segment
            return "\(path) frame \(frame) header field \(offset)"
        case 3:  // record bytes: the payload decompressed, mutated, stored raw, checksums and lengths fixed
            let path = segments[Int(random.next() % UInt64(segments.count))]
            var segment = files[path]!
            let frames = frames(segment)
            guard let frame = frames.isEmpty ? nil : frames[Int(random.next() % UInt64(frames.count))] else { return "no frame" }
            let stored = Int(load(segment, frame + 8, width: 4))
            let rawLength = Int(load(segment, frame + 12, width: 4))
            let payloadStart = frame + SegmentFormat.frameHeaderSize
            var raw = Array(segment[payloadStart..<(payloadStart + stored)])
            if segment[frame + 5] & SegmentFormat.flagCompressed != 0 {
                var out = [UInt8](repeating: 0, count: rawLength)
                let got = raw.withUnsafeBytes { src in
                    out.withUnsafeMutableBytes { dst in
                        LZ4_decompress_safe(
                            src.baseAddress!.assumingMemoryBound(to: CChar.self), dst.baseAddress!.assumingMemoryBound(to: CChar.self),
                            Int32(stored), Int32(rawLength))
                    }
                }
                guard got == rawLength else { return "undecodable frame" }
                raw = out
            }
            let position = Int(random.next() % UInt64(max(raw.count, 1)))
            switch random.next() % 4 {
            case 0: raw[position] = UInt8(truncatingIfNeeded: interesting(&random, width: 1))
            case 1: raw.replaceSubrange(position..<min(position + 10, raw.count), with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
            case 2: raw.removeSubrange(position..<raw.count)
            default: raw.insert(contentsOf: [0x80, 0x80, 0x80, 0x80, 0x10], at: position)
            }
            var header = Array(segment[frame..<payloadStart])
            header[5] &= ~SegmentFormat.flagCompressed
            store(UInt64(raw.count), width: 4, at: 8, in: &header)
            store(UInt64(raw.count), width: 4, at: 12, in: &header)
            store(crc(raw[...]), width: 4, at: 32, in: &header)
            store(crc(header[0..<36]), width: 4, at: 36, in: &header)
            segment.replaceSubrange(frame..<(payloadStart + stored), with: header + raw)
            files[path] = segment
            // A sealed segment's length is in the manifest: keep it true, so the records are what is wrong.
            fixManifestLength(&files, path: path, length: segment.count)
            return "\(path) frame \(frame) records"
        default:  // plain bit flips anywhere, checksums left alone
            let paths = files.keys.filter { $0 != "/db/LOCK" }.sorted()
            let path = paths[Int(random.next() % UInt64(paths.count))]
            var file = files[path]!
            guard !file.isEmpty else { return "empty file" }
            for _ in 0..<(1 + random.next() % 3) { file[Int(random.next() % UInt64(file.count))] ^= UInt8(1 << (random.next() % 8)) }
            files[path] = file
            return "\(path) bit flips"
        }
    }

    static func fixManifestLength(_ files: inout [String: [UInt8]], path: String, length: Int) {
        guard let id = SegmentFormat.segmentID(fromFileName: String(path.split(separator: "/").last!)),
            var manifest = try? Manifest.decode(files["/db/MANIFEST"]!, path: "MANIFEST"),
            let index = manifest.entries.firstIndex(where: { $0.id == id && !$0.isActive })
        else { return }
        manifest.entries[index].length = UInt64(length)
        files["/db/MANIFEST"] = manifest.encode()
    }

    static func fileSystem(_ files: [String: [UInt8]]) -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        for (name, content) in files { fs.setBytes(content, of: name) }
        return fs
    }

    /// Runs every reader over the files; records an issue for any error that is not a StorageError.
    static func exercise(_ files: [String: [UInt8]], _ label: String) -> (opened: Bool, damageFound: Bool) {
        func check(_ body: () throws -> Void) {
            do { try body() } catch let error as StorageError {
                #expect(!error.message.isEmpty, "\(label): an error without a message")
            } catch {
                Issue.record("\(label): \(error) is not a StorageError")
            }
        }
        var opened = false
        var damageFound = false
        let fs = fileSystem(files)
        check {
            let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
            opened = true
            defer { try? log.close() }
            check { _ = try allRecords(log) }
            check { damageFound = try !log.verify().isClean }
            _ = log.statistics
            check { try log.append(kind: 1, key: bytes("after"), value: bytes("fuzz")) }
            check {
                if let victim = log.compactionCandidates(minimumDeadRatio: 0).first {
                    let compaction = try log.makeCompaction(of: [victim]) { _ in true }
                    while try compaction.step() == nil {}
                }
            }
        }
        let readOnlyFS = fileSystem(files)
        check {
            var configuration = SegmentLog.Configuration.small(readOnlyFS)
            configuration.readOnly = true
            let log = try SegmentLog.open(at: "/db", configuration: configuration)
            check { _ = try log.verify() }
            try log.close()
        }
        check { _ = try SegmentLog.inspect(at: "/db", fileSystem: readOnlyFS) }
        let salvageFS = fileSystem(files)
        check {
            _ = try SegmentLog.salvage(at: "/db", configuration: .small(salvageFS))
            let log = try SegmentLog.open(at: "/db", configuration: .small(salvageFS))
            _ = try allRecords(log)
            try log.close()
        }
        return (opened, damageFound)
    }

    @Test("mutated manifests, segment headers, frame headers and records with valid checksums never trap")
    func fuzz() throws {
        var opened = 0
        var damaged = 0
        var kinds: [String: Int] = [:]
        for iteration in 0..<Self.iterations {
            var random = SeededRandom(seed: 10_000 + UInt64(iteration))
            var files = Self.base
            let what = Self.mutate(&files, &random)
            kinds[String(what.split(separator: " ").dropFirst(what.hasPrefix("manifest") ? 0 : 1).first ?? ""), default: 0] += 1
            let outcome = Self.exercise(files, "case \(iteration) (\(what))")
            if outcome.opened { opened += 1 }
            if outcome.damageFound { damaged += 1 }
        }
        print("structure fuzz: \(Self.iterations) cases, \(opened) opened for writing, \(damaged) with damage found by verify")
        #expect(opened > 0 && damaged > 0, "the mutations reach the readers past the checksums")
    }
}
