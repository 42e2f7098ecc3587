import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Target crash consistency")
struct TargetCrashTests {
    typealias Step = @Sendable (LocalStore) throws -> Void

    /// A small target workload: every kind of target and globals event, and retirements.
    static let script: [Step] = [
        { _ = try $0.allocateTarget(roomsQuery()) },
        { _ = try $0.allocateTarget(roomsQuery(sizeAbove: 1)) },
        { try $0.advanceTarget(roomsQuery(), token: [1], at: 10, added: keySet("rooms/a", "rooms/b")) },
        { try $0.setLastRemoteSnapshotVersion(time(10)) },
        { try $0.advanceTarget(roomsQuery(sizeAbove: 1), token: [2], at: 10, added: keySet("rooms/b", "rooms/c")) },
        { try $0.setWriteStreamToken([7, 7], forUser: "alice") },
        { try $0.advanceTarget(roomsQuery(), token: [3], at: 20, added: keySet("rooms/d"), removed: keySet("rooms/a")) },
        { try $0.releaseTarget(4, keepPersisted: false) },
        { try $0.removeTarget(4) },
        { _ = try $0.allocateTarget(roomsQuery(sizeAbove: 2)) },
        { try $0.advanceTarget(roomsQuery(sizeAbove: 2), token: [4], at: 30, added: keySet("rooms/e")) },
        { try $0.setSessionToken([9]) },
    ]

    /// What a restarted store shows of the workload.
    struct Observed: Equatable {
        var targets: [TargetData?]
        var members: [Set<DocumentKey>]
        var lastRemoteSnapshotVersion: Timestamp
        var highestTargetID: Int32
        var token: [UInt8]?
        var sessionToken: [UInt8]

        init(_ store: LocalStore) {
            targets = [roomsQuery(), roomsQuery(sizeAbove: 1), roomsQuery(sizeAbove: 2)].map { store.targetData(for: $0) }
            members = [2, 4, 6].map { store.remoteKeys(forTarget: $0) }
            lastRemoteSnapshotVersion = store.lastRemoteSnapshotVersion
            highestTargetID = store.highestTargetID
            token = store.writeStreamToken(forUser: "alice")
            sessionToken = store.sessionToken
        }
    }

    static func observe(_ fs: SimulatedFileSystem) throws -> Observed {
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        defer { try? store.close() }
        return Observed(store)
    }

    @Test("a crash at any I/O operation leaves each call wholly present or absent, and every returned call present")
    func crashAtEveryOperation() throws {
        // The state after each prefix of the script, seen through a restart.
        let clean = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(clean))
        var expected = [try Self.observe(clean.crashImage(.keepUnsyncedData, seed: 0))]
        for step in Self.script {
            try step(store)
            expected.append(try Self.observe(clean.crashImage(.keepUnsyncedData, seed: 0)))
        }
        try store.close()
        #expect(Set(expected.map { "\($0)" }).count == expected.count, "every step changes what a restart sees")

        var crashPoint = 1
        while true {
            let fs = SimulatedFileSystem(seed: UInt64(crashPoint))
            fs.crashAtOperation = crashPoint
            var returned = 0
            do {
                let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
                for step in Self.script {
                    try step(store)
                    returned += 1
                }
                try store.close()
            } catch {}
            guard fs.isCrashed else { break }
            let observed = try Self.observe(fs.crashImage(.dropUnsyncedData, seed: UInt64(crashPoint)))
            let allowed = expected[returned...].prefix(2)
            #expect(allowed.contains(observed), "crash at operation \(crashPoint) after \(returned) returned calls")
            crashPoint += 1
        }
        #expect(crashPoint > 20, "the workload performs many I/O operations")
    }
}
