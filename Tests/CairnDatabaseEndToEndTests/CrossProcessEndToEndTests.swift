import CairnDatabase
import CairnDatabaseCore
import CairnDatabaseServer
import CairnTestSupport
import Foundation
import Testing

/// Issue 16's end-to-end proofs across processes: `cairn database-child` processes (offline writes and a hard
/// exit, a restart that syncs, presence killed with SIGKILL) and Firebase's Python Admin SDK against the local
/// server in this process. Every wait polls under a generous guard; every child is SIGKILLed at the end.
@Suite("Realtime Database end to end across processes: children, the server and the Admin SDK")
struct CrossProcessEndToEndTests {
    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test("Offline writes survive a hard exit and reach the server in order after a restart, timestamps resolved by the server")
    func offlineWritesSurviveHardExit() async throws {
        try await ServerFixture.withServer { fixture in
            // The server is down while the child writes: it only lends its port and namespace.
            await fixture.stop()
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-e2e-cache-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: cache) }
            let count = 12
            let address = ["--emulator", "127.0.0.1:\(fixture.port)", "--ns", fixture.namespace]

            let writer = try DatabaseChild(["write", cache] + address + ["--count", "\(count)"])
            defer { writer.kill() }
            let status = await writer.waitForExit()
            try #require(status == 0 && writer.lines == ["written \(count)"], "\(writer)")

            let serverStarted = Self.now()
            try await fixture.restart()
            let syncer = try DatabaseChild(["sync", cache] + address)
            defer { syncer.kill() }
            try #require(await syncer.waitForLine("connected"), "\(syncer)")
            let arrived = await eventually(seconds: DatabaseChild.hangGuard) {
                fixture.serverValue("items").objectValue?.count == count && fixture.serverValue("meta/last") == .int(Int64(count - 1))
            }
            let checked = Self.now()
            try #require(arrived, "items: \(fixture.serverValue("items")); meta: \(fixture.serverValue("meta")); \(syncer)")

            let items = try #require(fixture.serverValue("items").objectValue)
            var previous = serverStarted
            for i in 0..<count {
                let item = try #require(items[String(format: "w%03d", i)]?.objectValue, "item \(i) is missing: \(items)")
                #expect(item["i"] == .int(Int64(i)))
                guard case .int(let at)? = item["at"] else {
                    Issue.record("items/w\(i)/at is \(String(describing: item["at"])), not a number the server resolved")
                    continue
                }
                #expect(at >= previous && at <= checked, "write \(i) resolved at \(at), after \(previous), by \(checked)")
                previous = at
            }
            #expect(fixture.serverValue("meta") == .object(["last": .int(Int64(count - 1))]))

            if AdminSDK.shouldRun {
                let read = try #require(try await AdminSDK.read("items", port: fixture.port, namespace: fixture.namespace) as? [String: Any])
                #expect(read.count == count)
                for (key, value) in read {
                    let item = try #require(value as? [String: Any], "\(key): \(value)")
                    let at = try #require(item["at"] as? NSNumber, "\(key)/at is \(String(describing: item["at"])), not a number")
                    #expect(fixture.serverValue("items/\(key)/at") == .int(at.int64Value))
                }
            }
            await syncer.killAndWait()
        }
    }

    @Test("A client killed with SIGKILL goes offline: the server runs its onDisconnectSetValue when the socket closes")
    func presenceOfflineAfterKill() async throws {
        try await ServerFixture.withServer { fixture in
            let child = try DatabaseChild(["presence", "--emulator", "127.0.0.1:\(fixture.port)", "--ns", fixture.namespace, "--id", "ada"])
            defer { child.kill() }
            try #require(await child.waitForLine("online"), "\(child)")
            #expect(fixture.serverValue("status/ada") == .string("online"))

            await child.killAndWait()
            #expect(await eventually(seconds: DatabaseChild.hangGuard) { fixture.serverValue("status/ada") == .string("offline") })
        }
    }

    @Test("A cancelled onDisconnect is not run when the killed client's connection closes")
    func cancelledPresenceStaysOnline() async throws {
        try await ServerFixture.withServer { fixture in
            let child = try DatabaseChild(
                ["presence", "--emulator", "127.0.0.1:\(fixture.port)", "--ns", fixture.namespace, "--id", "bob", "--cancel"])
            defer { child.kill() }
            try #require(await child.waitForLine("online"), "\(child)")
            try #require(fixture.server.core.sessionIDs.count == 1)

            await child.killAndWait()
            // The server closes a session and runs its onDisconnects under one lock: once it is gone, they have run.
            try #require(await eventually(seconds: DatabaseChild.hangGuard) { fixture.server.core.sessionIDs.isEmpty })
            #expect(fixture.serverValue("status/bob") == .string("online"))
        }
    }

    @Test("Admin SDK writes reach a Cairn listener with their types; a Cairn write made offline reaches the Admin SDK only after goOnline",
          .enabled(if: AdminSDK.shouldRun, AdminSDK.skipReason))
    func adminSDKAndCairnSeeEachOther() async throws {
        try await ServerFixture.withServer { fixture in
            let client = fixture.makeClient()
            let seen = SnapshotBox()
            client.reference(withPath: "typed").observe(.value) { seen.set($0.value) }
            try #require(await eventually { seen.isSet })

            try await AdminSDK.set(
                "typed",
                json: #"{"int": 42, "big": 9007199254740993, "negative": -7, "float": 2.5, "tiny": -0.125, "text": "Zoë 東京", "yes": true, "no": false, "nested": {"deep": {"n": 3, "s": "x", "f": 0.5}}}"#,
                port: fixture.port, namespace: fixture.namespace)
            try #require(await eventually(seconds: 60) { (seen.value as? [String: Any])?.count == 9 }, "\(String(describing: seen.value))")
            let typed = try #require(seen.value as? [String: Any])
            #expect(typed["int"] as? Int == 42 && type(of: typed["int"]!) == Int.self)
            #expect(typed["big"] as? Int == 9_007_199_254_740_993)
            #expect(typed["negative"] as? Int == -7)
            #expect(typed["float"] as? Double == 2.5 && type(of: typed["float"]!) == Double.self)
            #expect(typed["tiny"] as? Double == -0.125)
            #expect(typed["text"] as? String == "Zoë 東京")
            #expect(typed["yes"] as? Bool == true && type(of: typed["yes"]!) == Bool.self)
            #expect(typed["no"] as? Bool == false && type(of: typed["no"]!) == Bool.self)
            let deep = try #require((typed["nested"] as? [String: Any])?["deep"] as? [String: Any])
            #expect(deep["n"] as? Int == 3 && deep["s"] as? String == "x" && deep["f"] as? Double == 0.5)

            client.goOffline()
            let acknowledged = ValueLog()
            client.reference(withPath: "drafts/d1").setValue(["title": "written offline", "n": 1]) { error, _ in
                acknowledged.add(error.map { "\($0)" } ?? "ok")
            }
            let whileOffline = try await AdminSDK.read("drafts/d1", port: fixture.port, namespace: fixture.namespace)
            #expect(whileOffline is NSNull, "the Admin SDK saw \(whileOffline) before goOnline")
            #expect(acknowledged.values.isEmpty)

            client.goOnline()
            try #require(await eventually(seconds: 60) { acknowledged.values == ["ok"] }, "\(acknowledged.values)")
            let afterOnline = try #require(
                try await AdminSDK.read("drafts/d1", port: fixture.port, namespace: fixture.namespace) as? [String: Any])
            #expect(afterOnline["title"] as? String == "written offline")
            #expect((afterOnline["n"] as? NSNumber)?.intValue == 1)
        }
    }
}

/// The latest value a `value` observer saw.
final class SnapshotBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Any?? = .none

    func set(_ value: Any?) { lock.withLock { stored = .some(value) } }
    var isSet: Bool { lock.withLock { stored != nil } }
    var value: Any? { lock.withLock { stored ?? nil } }
}
