import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Packed view entries: 40 bytes when the fields fit, kept whole when they do not, never lossy")
struct PackedEntriesTests {
    @Test("every field of an entry reads back exactly, whether it fits the packed form or is kept whole")
    func everyFieldRoundTrips() {
        #expect(PackedEntries.packedStride == 40)
        let sequences: [UInt64] = [0, 7, (1 << 62) - 1, 1 << 62, .max]
        let times = [
            Timestamp(seconds: 0, nanoseconds: 0), Timestamp(seconds: Int64(UInt32.max), nanoseconds: 999_999_999),
            Timestamp(seconds: 1_764_000_000, nanoseconds: (1 << 30) - 1), Timestamp(seconds: -1, nanoseconds: 0),
            Timestamp(seconds: Int64(UInt32.max) + 1, nanoseconds: 0), Timestamp(seconds: 5, nanoseconds: 1 << 30),
            Timestamp(seconds: 5, nanoseconds: -1), Timestamp(seconds: .min, nanoseconds: 999_999_999),
        ]
        let references: [EventReference] = [
            .log(RecordLocation(segment: .max, frameOffset: .max, index: 0xFFFF, size: 0xFFFF)),
            .log(RecordLocation(segment: 1, frameOffset: 2, index: 0x1_0000, size: 3)),
            .log(RecordLocation(segment: 1, frameOffset: 2, index: 3, size: 0x1_0000)),
            .memory(0), .memory(-1), .memory(.max), .memory(.min),
        ]
        let states: [Document.State] = [.found, .noDocument, .unknown]
        var entries = PackedEntries()
        var expected: [RemoteDocumentEntry] = []
        var random = SeededRandom(seed: 11)
        for (step, sequence) in sequences.enumerated() {
            for version in times {
                for reference in references {
                    var entry = RemoteDocumentEntry(
                        reference: reference, state: states[random.below(3)], version: version,
                        readTime: times[random.below(times.count)], hasCommittedMutations: random.below(2) == 0,
                        sequence: sequence)
                    entry.orphan = [0, 1, .max][(step + expected.count) % 3]
                    entries.append(entry)
                    expected.append(entry)
                }
            }
        }
        #expect(entries.count == expected.count)
        for position in expected.indices { #expect(Self.fields(entries[position]) == Self.fields(expected[position]), "\(position)") }
        #expect(entries.overflowCount == expected.filter { !Self.fits($0) }.count)
        #expect(entries.overflowCount > 0 && entries.overflowCount < expected.count)
    }

    /// Random appends, replacements and swap removals, a third of them with a field that does not fit: the
    /// entries always read as an array of unpacked entries does, and the side array keeps only live entries.
    @Test("entries kept whole follow replacements and swap removals, and their places are reused and freed")
    func overflowFollowsEveryMove() {
        for seed in 1...3 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            var entries = PackedEntries()
            var model: [RemoteDocumentEntry] = []
            for step in 0..<20_000 {
                let entry = Self.entry(step: step, wide: random.below(3) == 0)
                switch random.below(model.isEmpty ? 1 : 3) {
                case 0:
                    entries.append(entry)
                    model.append(entry)
                case 1:
                    let position = random.below(model.count)
                    entries.set(entry, at: position)
                    model[position] = entry
                default:
                    let position = random.below(model.count)
                    #expect(Self.fields(entries.swapRemove(at: position)) == Self.fields(model[position]))
                    model[position] = model[model.count - 1]
                    model.removeLast()
                }
                if step % 997 == 0 {
                    #expect(entries.count == model.count)
                    #expect(model.indices.allSatisfy { Self.fields(entries[$0]) == Self.fields(model[$0]) }, "seed \(seed) step \(step)")
                    #expect(entries.overflowCount == model.filter { !Self.fits($0) }.count)
                }
            }
            while !model.isEmpty {
                _ = entries.swapRemove(at: 0)
                model[0] = model[model.count - 1]
                model.removeLast()
            }
            #expect(entries.isEmpty && entries.overflowCount == 0)
        }
    }

    @Test("a view entry relocated to a record too large to pack, and back, keeps its other fields and its orphan id")
    func relocationAcrossThePackedForm() {
        var bucket = DocumentBucket()
        let small = EventReference.log(RecordLocation(segment: 3, frameOffset: 40, index: 2, size: 900))
        let large = EventReference.log(RecordLocation(segment: 9, frameOffset: 0, index: 0, size: 300_000))
        let version = Timestamp(seconds: 1_764_000_123, nanoseconds: 456)
        bucket.set(
            RemoteDocumentEntry(reference: small, state: .found, version: version, readTime: version, hasCommittedMutations: true, sequence: 77),
            for: "d1")
        bucket.setOrphan(5, at: 0)
        let movedOut = bucket.relocate("d1", from: small, to: large)
        #expect(movedOut)
        #expect(bucket.entries.overflowCount == 1)
        #expect(bucket["d1"].map(Self.fields) == Self.fields(reference: large, version: version, committed: true, sequence: 77, orphan: 5))
        let movedBack = bucket.relocate("d1", from: large, to: small)
        #expect(movedBack)
        #expect(bucket.entries.overflowCount == 0)
        #expect(bucket["d1"].map(Self.fields) == Self.fields(reference: small, version: version, committed: true, sequence: 77, orphan: 5))
    }

    private static func entry(step: Int, wide: Bool) -> RemoteDocumentEntry {
        let size = UInt32(wide ? 70_000 + step : 100 + step % 1_000)
        var entry = RemoteDocumentEntry(
            reference: .log(RecordLocation(segment: UInt32(step), frameOffset: UInt32(step * 7), index: UInt32(step % 50), size: size)),
            state: .found, version: Timestamp(seconds: Int64(step), nanoseconds: Int32(step)),
            readTime: Timestamp(seconds: Int64(step) + 1, nanoseconds: 0), hasCommittedMutations: step % 2 == 0,
            sequence: UInt64(step))
        entry.orphan = UInt32(step % 5)
        return entry
    }

    /// The test's own statement of what the packed form holds.
    private static func fits(_ entry: RemoteDocumentEntry) -> Bool {
        func fits(_ time: Timestamp) -> Bool {
            (0...Int64(UInt32.max)).contains(time.seconds) && (0..<(1 << 30)).contains(time.nanoseconds)
        }
        guard entry.sequence < 1 << 62, fits(entry.version), fits(entry.readTime) else { return false }
        if case .log(let at) = entry.reference { return at.index < 1 << 16 && at.size < 1 << 16 }
        return true
    }

    private static func fields(_ entry: RemoteDocumentEntry) -> String {
        "\(describe(entry.reference)) \(entry.state) \(entry.version) \(entry.readTime) \(entry.hasCommittedMutations) \(entry.sequence) \(entry.orphan)"
    }

    private static func fields(reference: EventReference, version: Timestamp, committed: Bool, sequence: UInt64, orphan: UInt32) -> String {
        "\(describe(reference)) \(Document.State.found) \(version) \(version) \(committed) \(sequence) \(orphan)"
    }

    /// Every field of a reference (a location's description leaves out its size).
    private static func describe(_ reference: EventReference) -> String {
        guard case .log(let at) = reference else { return "\(reference)" }
        return "log \(at.segment) \(at.frameOffset) \(at.index) \(at.size)"
    }
}
