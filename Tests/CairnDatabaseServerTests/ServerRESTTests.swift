import CairnDatabaseCore
@testable import CairnDatabaseServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Server transport: the REST API over loopback", .serialized)
struct ServerRESTTests {
    struct Answer {
        var status: Int
        var body: JSONValue
        var etag: String?
    }

    static func request(_ method: String, _ port: Int, _ target: String, body: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(target)")))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Answer(status: http.statusCode, body: data.isEmpty ? .null : json(String(decoding: data, as: UTF8.self)),
                      etag: http.value(forHTTPHeaderField: "ETag"))
    }

    @Test("GET applies orderBy with limits and ranges, shallow lists children; bad queries are 400 with a message")
    func queries() async throws {
        let server = DatabaseServer(configuration: DatabaseServerConfiguration())
        let port = try await server.start()
        try server.core.write(.set(DatabasePath(keys: ["scores"]), Node(json: json(#"{"a":{"s":1},"b":{"s":5},"c":{"s":3}}"#))), namespace: "rest")
        let top = try await Self.request("GET", port, "/scores.json?ns=rest&orderBy=%22s%22&limitToLast=2")
        #expect(top.body == json(#"{"b":{"s":5},"c":{"s":3}}"#))
        let range = try await Self.request("GET", port, "/scores.json?ns=rest&orderBy=%22$key%22&startAt=%22b%22")
        #expect(range.body == json(#"{"b":{"s":5},"c":{"s":3}}"#))
        let shallow = try await Self.request("GET", port, "/.json?ns=rest&shallow=true")
        #expect(shallow.body == json(#"{"scores":true}"#))
        let missingOrder = try await Self.request("GET", port, "/scores.json?ns=rest&limitToFirst=1")
        #expect(missingOrder.status == 400)
        #expect(missingOrder.body["error"] != nil)
        await server.stop()
    }

    @Test("PUT with if-match applies only on the current ETag; a stale one is 412 with the current data and ETag")
    func conditionalPut() async throws {
        let server = DatabaseServer(configuration: DatabaseServerConfiguration())
        let port = try await server.start()
        let read = try await Self.request("GET", port, "/counter.json?ns=rest", headers: ["X-Firebase-ETag": "true"])
        let empty = try #require(read.etag)
        let first = try await Self.request("PUT", port, "/counter.json?ns=rest", body: "1", headers: ["if-match": empty])
        #expect(first.status == 200)
        let stale = try await Self.request("PUT", port, "/counter.json?ns=rest", body: "7", headers: ["if-match": empty])
        #expect(stale.status == 412)
        #expect(stale.body == .int(1))
        #expect(stale.etag != nil && stale.etag != empty)
        #expect(server.core.read(namespace: "rest", path: DatabasePath(keys: ["counter"])).exportJSON() == .int(1))
        await server.stop()
    }

    @Test("POST stores under a 20-character push id that sorts after earlier ones; PATCH merges; DELETE removes")
    func postPatchDelete() async throws {
        let server = DatabaseServer(configuration: DatabaseServerConfiguration())
        let port = try await server.start()
        var names: [String] = []
        for n in 0..<3 {
            let posted = try await Self.request("POST", port, "/log.json?ns=rest", body: #"{"n":\#(n)}"#)
            guard case .string(let name)? = posted.body["name"] else {
                Issue.record("no name in \(posted.body)")
                continue
            }
            names.append(name)
        }
        #expect(names.count == 3 && names.allSatisfy { $0.count == 20 })
        #expect(server.core.read(namespace: "rest", path: DatabasePath(keys: ["log"])).childKeys == names)
        _ = try await Self.request("PATCH", port, "/log.json?ns=rest&print=silent", body: #"{"\#(names[0])/n":9,"extra":true}"#)
        _ = try await Self.request("DELETE", port, "/log/\(names[1]).json?ns=rest")
        let log = server.core.read(namespace: "rest", path: DatabasePath(keys: ["log"]))
        #expect(log.childKeys == [names[0], names[2], "extra"])
        #expect(log.immediateChild(names[0]).exportJSON() == json(#"{"n":9}"#))
        await server.stop()
    }
}
