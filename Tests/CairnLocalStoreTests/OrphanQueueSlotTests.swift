import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The orphan queue's slots name documents by handle, and each queued entry names its slot (its number + 1): an
/// entry that moves rewrites its slot's handle, a slot that moves rewrites its entry, and a document has one
/// live slot. Compaction moves slots a few per change, and dropping the stale front moves none.
@Suite("Orphan queue: each queued entry names its own slot")
struct OrphanQueueSlotTests {
    @Test("an entry a bucket's removal moved into the hole stays queued at its sequence number and is collected in its turn")
    func swapRemovedEntryStaysQueued() throws {
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(SimulatedFileSystem()))
        let paths = (0..<10).map { "rooms/r\($0)" }
        for (step, path) in paths.enumerated() {
            try store.applyRemoteDocuments([found(path, version: Int64(step + 1), ["n": .integer(Int64(step))])])
        }
        let last = key(paths[9])
        let sequence = try #require(store.remoteDocuments.orphanSequence(of: last))
        let handle = store.remoteDocuments.handle(of: last)
        // r2 stops existing: it leaves the bucket of `rooms`, whose last entry (r9) moves into its place.
        try store.applyRemoteDocuments([Document(key: key(paths[2]), state: .noDocument, version: time(20))])
        #expect(store.remoteDocuments.handle(of: last) != handle, "r9 moved")
        #expect(store.remoteDocuments.orphanSequence(of: last) == sequence)
        #expect(store.remoteDocuments.orphanInvariantViolations() == [])
        let order = paths.filter { $0 != paths[2] } + [paths[2]]
        #expect(store.remoteDocuments.lowestOrphans(Int.max).entries.map(\.element) == order.map(key))
        for (turn, path) in order.enumerated() {
            let result = try store.collectGarbage(threshold: 0, maxRounds: 1)
            #expect(result.documentsEvicted == 1)
            #expect(try store.remoteDocument(key(path)) == nil, "\(path) went in turn \(turn)")
            #expect(try order[(turn + 1)...].allSatisfy { try store.remoteDocument(key($0)) != nil })
            #expect(store.remoteDocuments.orphanInvariantViolations() == [])
        }
        try store.close()
    }

    @Test("an orphan moved to a newer, older, equal or lowest sequence number keeps exactly one live slot")
    func resetLeavesOneLiveSlot() throws {
        var view = RemoteDocumentView()
        let keys = (0..<5).map { key("orders/o\($0)") }
        for (index, key) in keys.enumerated() {
            view.set(OrphanModel.entry(sequence: UInt64(index + 1)), for: key)
            view.setOrphan(key, sequence: UInt64(index + 1))
        }
        let moved = keys[1]
        let handle = try #require(view.handle(of: moved))
        for (turn, sequence) in ([9, 3, 12, 12, 0] as [UInt64]).enumerated() {
            let stored = view.orphans.storedSlots
            view.setOrphan(moved, sequence: sequence)
            #expect(view.orphanSequence(of: moved) == sequence)
            #expect(view.orphans.slots.filter { $0.handle == handle }.count == 1, "at \(sequence)")
            #expect(view.orphanCount == keys.count)
            #expect(view.orphanInvariantViolations() == [], "at \(sequence)")
            if turn == 3 { #expect(view.orphans.storedSlots == stored, "the same number again: no new slot") }
        }
        #expect(view.lowestOrphans(Int.max).entries.map(\.element) == [moved, keys[0], keys[2], keys[3], keys[4]])
    }

    /// Random writes that move documents between buckets, evictions that move each bucket's last entry, orphans
    /// queued at newer and (one in five) older sequence numbers, taken out, and collected from the front in
    /// rounds: compactions run many times; every queued entry names its own slot, every sequence number and
    /// the walk's order match a model (a dictionary key → sequence number, all numbers distinct).
    @Test("after thousands of random changes, compactions and front drops every queued entry names its own slot and the walk follows the model")
    func randomChangesKeepEntriesOnTheirSlots() throws {
        let keys = (0..<300).map { key(["orders/o\($0)", "rooms/r\($0 % 7)/messages/m\($0)", "users/u\($0)"][$0 % 3]) }
        for seed in 1...3 as ClosedRange<UInt64> {
            var random = SeededRandom(seed: seed)
            var model = OrphanModel()
            var compactions = 0
            for step in 1...6_000 {
                let key = keys[random.below(keys.count)]
                let wasCompacting = model.view.orphans.compacting
                switch random.below(20) {
                case 0:
                    model.remove(key)
                case 1:
                    let removed = model.removeOrphan(key)
                    #expect(removed.view == removed.model)
                case 2, 3, 4, 5:
                    model.set(OrphanModel.entry(sequence: UInt64(step), state: random.below(4) == 0 ? .noDocument : .found), for: key)
                case 6:
                    let pick = model.view.lowestOrphans(random.below(4) + 1)
                    model.view.dropStaleOrphans(before: pick.front)
                    for (_, chosen) in pick.entries {
                        if random.below(2) == 0 { model.remove(chosen) } else { _ = model.removeOrphan(chosen) }
                    }
                default:
                    let base = random.below(5) == 0 ? random.below(step) : step
                    model.setOrphan(key, sequence: UInt64(base) * 100_000 + UInt64(step))
                }
                if model.view.orphans.compacting && !wasCompacting { compactions += 1 }
                if step % 25 == 0 {
                    let problems = model.view.orphanInvariantViolations()
                    #expect(problems == [], "seed \(seed), step \(step)")
                    #expect(model.sequencesMatch(keys), "seed \(seed), step \(step)")
                    if !problems.isEmpty { return }
                }
                if step % 500 == 0 {
                    let expected = model.sequences.sorted { $0.value < $1.value }.map(\.key)
                    #expect(model.view.lowestOrphans(Int.max).entries.map(\.element) == expected, "seed \(seed), step \(step)")
                }
            }
            #expect(compactions > 10, "seed \(seed): \(compactions) compactions")
        }
    }

    @Test("while a compaction runs, a change renumbers at most compactionStep entries besides its own")
    func compactionRenumbersAFewEntriesPerChange() throws {
        var view = RemoteDocumentView()
        let keys = (0..<600).map { key("orders/o\($0)") }
        for (index, key) in keys.enumerated() {
            view.set(OrphanModel.entry(sequence: UInt64(index + 1)), for: key)
            view.setOrphan(key, sequence: UInt64(index + 1))
        }
        var compacted = false
        var sequence = UInt64(keys.count)
        for round in 0..<3 {
            for (index, key) in keys.enumerated() where index % 3 != round {
                let before = Self.fields(view)
                sequence += 1
                view.setOrphan(key, sequence: sequence)
                let handle = try #require(view.handle(of: key))
                let changed = zip(before, Self.fields(view)).filter { $0.0.value != $0.1.value && $0.0.handle != handle }.count
                #expect(changed <= OrphanQueue.compactionStep, "round \(round), \(key)")
                compacted = compacted || view.orphans.compacting
            }
        }
        #expect(compacted)
        #expect(view.orphanInvariantViolations() == [])
        #expect(view.orphans.storedSlots < 3 * keys.count, "the stale slots were reclaimed")
    }

    @Test("dropping the stale front renumbers no entry, moves no slot, and the walk does not read it again")
    func droppingTheFrontRenumbersNothing() throws {
        var view = RemoteDocumentView()
        let keys = (0..<200).map { key("orders/o\($0)") }
        for (index, key) in keys.enumerated() {
            view.set(OrphanModel.entry(sequence: UInt64(index + 1)), for: key)
            view.setOrphan(key, sequence: UInt64(index + 1))
        }
        for (_, key) in view.lowestOrphans(50).entries { view.remove(key) }
        let fields = Self.fields(view)
        let slots = view.orphans.slots.map(\.sequence)
        let pick = view.lowestOrphans(10)
        #expect(pick.examined == 60 && pick.front == 50)
        view.dropStaleOrphans(before: pick.front)
        #expect(Self.fields(view).map(\.value) == fields.map(\.value))
        #expect(view.orphans.slots.map(\.sequence) == slots)
        #expect(view.lowestOrphans(10).examined == 10)
        #expect(view.lowestOrphans(10).entries.map(\.element) == pick.entries.map(\.element))
        #expect(view.orphanInvariantViolations() == [])
    }

    @Test("in a rebuilt queue, an older sequence number inserted near the front renumbers only the slots before its place")
    func olderNumberAfterRebuildRenumbersFew() throws {
        var view = RemoteDocumentView()
        let keys = (0..<5_000).map { key("orders/o\($0)") }
        for (index, key) in keys.enumerated() { view.set(OrphanModel.entry(sequence: UInt64(100 * index + 100)), for: key) }
        view.rebuildOrphans { _, entry in entry.sequence }
        for (turn, moved) in keys.suffix(20).enumerated() {
            let before = Self.fields(view)
            view.setOrphan(moved, sequence: UInt64(350 + turn))
            let handle = try #require(view.handle(of: moved))
            let changed = zip(before, Self.fields(view)).filter { $0.0.value != $0.1.value && $0.0.handle != handle }.count
            #expect(changed <= 3 + turn, "turn \(turn): \(changed) entries renumbered")
        }
        #expect(view.orphanInvariantViolations() == [])
        let expected = keys.prefix(3) + keys.suffix(20) + keys.dropFirst(3).dropLast(20)
        #expect(view.lowestOrphans(Int.max).entries.map(\.element) == Array(expected))
    }

    @Test("with no stale front, older numbers near the front renumber every entry once, then only the slots before their place")
    func olderNumbersWithoutFrontRoomRenumberOnce() throws {
        var view = RemoteDocumentView()
        let keys = (0..<5_000).map { key("orders/o\($0)") }
        for (index, key) in keys.enumerated() {
            view.set(OrphanModel.entry(sequence: UInt64(100 * index + 100)), for: key)
            view.setOrphan(key, sequence: UInt64(100 * index + 100))
        }
        var renumbered = 0
        for (turn, moved) in keys.suffix(20).enumerated() {
            let before = Self.fields(view)
            view.setOrphan(moved, sequence: UInt64(350 + turn))
            let handle = try #require(view.handle(of: moved))
            renumbered += zip(before, Self.fields(view)).filter { $0.0.value != $0.1.value && $0.0.handle != handle }.count
        }
        // One renumbering of the 5,000 entries, then a few per turn (20 × 5,000 without the stale front).
        #expect(renumbered <= 5_000 + 20 * 25, "\(renumbered) entries renumbered")
        #expect(view.orphanInvariantViolations() == [])
        let expected = keys.prefix(3) + keys.suffix(20) + keys.dropFirst(3).dropLast(20)
        #expect(view.lowestOrphans(Int.max).entries.map(\.element) == Array(expected))
    }

    /// Every entry's handle and ``RemoteDocumentEntry/orphan`` field, bucket by bucket.
    private static func fields(_ view: RemoteDocumentView) -> [(handle: DocumentHandle, value: UInt32)] {
        view.buckets.indices.flatMap { number in
            view.buckets[number].entries.indices.map {
                (DocumentHandle(bucket: number, position: $0), view.buckets[number].entries[$0].orphan)
            }
        }
    }
}
