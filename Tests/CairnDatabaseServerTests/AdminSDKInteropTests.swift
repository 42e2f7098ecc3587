import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
import Testing

@Suite("Interop: Firebase's Python Admin SDK against the server", .serialized,
       .enabled(if: AdminSDKPeer.shouldRun, AdminSDKPeer.skipReason))
struct AdminSDKInteropTests {
    @Test("firebase-admin's set, update, push, get, queries, transactions, ETags and event stream work unchanged; the server holds its writes")
    func adminSDKRoundTrip() async throws {
        var configuration = DatabaseServerConfiguration()
        // The SDK's listener thread notices its stream was closed at the next event: keep-alives every 200 ms.
        configuration.keepAliveInterval = .milliseconds(200)
        let server = DatabaseServer(configuration: configuration)
        let port = try await server.start()
        let namespace = "interop-admin"
        // A Cairn-side listener on the same data: the Admin SDK's REST writes reach WebSocket listeners.
        let listener = SessionRecorder(core: server.core, namespace: namespace)
        listener.send("q", json(#"{"p":"/interop/scores","h":"","t":1,"q":{"i":"score","l":2,"vf":"r"}}"#))
        _ = listener.take()

        let outcome = try await AdminSDKPeer.runScript(port: port, namespace: namespace)
        await server.stop()
        try #require(outcome.status == 0, "the Python peer failed: \(outcome)")
        let seen = try #require(outcome.output.split(separator: "\n").last.map { json(String($0)) }, "\(outcome)")

        #expect(seen["top_two"] == json(#"[["cy",{"score":20}],["bob",{"score":30}]]"#))
        #expect(seen["keys_b_to_cy"] == json(#"["bob","cy"]"#))
        #expect(seen["true_flags"] == json(#"["x","z"]"#))
        #expect(seen["shallow"] == json(#"{"profile":true,"log":true,"scores":true,"flags":true}"#))
        #expect(seen["counter"] == .int(5))
        #expect(seen["stale_set"] == json(#"{"ok":false,"current":105,"etag_changed":true}"#))
        #expect(seen["doomed"] == .null)
        let events = try #require(seen["stream_events"].flatMap { if case .array(let events) = $0 { events } else { nil } })
        #expect(events.first == json(#"{"type":"put","path":"/","data":null}"#))
        #expect(events.contains(json(#"{"type":"put","path":"/live","data":"hello"}"#)))

        // The server's own view of what the Admin SDK wrote, types intact (2^53 + 1 stays an exact integer).
        let root = DatabasePath(keys: ["interop"])
        let profile = server.core.read(namespace: namespace, path: root.child("profile")).exportJSON()
        #expect(profile == json(#"{"name":"Zoë — 東京","big":9007199254740993,"ratio":0.1,"done":true,"tags":{"0":"a","1":"b"},"nested":{"depth":1,"extra":"x"},"age":36}"#))
        #expect(seen["profile"] == json(#"{"name":"Zoë — 東京","big":9007199254740993,"ratio":0.1,"done":true,"tags":["a","b"],"nested":{"depth":1,"extra":"x"},"age":36}"#))
        #expect(server.core.read(namespace: namespace, path: root.child("counter")).exportJSON() == .int(105))
        let log = server.core.read(namespace: namespace, path: root.child("log"))
        #expect(log.childKeys == (seen["pushed"].flatMap { if case .array(let keys) = $0 { keys.compactMap { if case .string(let key) = $0 { key } else { nil } } } else { nil } } ?? []))
        #expect(log.childKeys.count == 3)
        #expect(log.childKeys.enumerated().allSatisfy { index, key in log.immediateChild(key).exportJSON() == .object(["n": .int(Int64(index))]) })

        let pushes = listener.take().pushes
        #expect(pushes.last?.body["t"] == .int(1))
        #expect(pushes.last?.body["d"] == json(#"{"bob":{"score":30},"cy":{"score":20}}"#))
    }
}
