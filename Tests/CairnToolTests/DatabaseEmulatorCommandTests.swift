import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("cairn database-emulator", .serialized)
struct DatabaseEmulatorCommandTests {
    /// A running `cairn database-emulator`: the port from its ready line, and the process.
    struct Running {
        var process: Process
        var port: Int
        var readyLine: String

        /// SIGTERM, then its exit status.
        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static func start(_ arguments: [String]) throws -> Running {
        try #require(FileManager.default.isExecutableFile(atPath: Cairn.binary), "build the cairn product first: \(Cairn.binary) is missing")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Cairn.binary)
        process.arguments = ["database-emulator", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = String(text.split(separator: "\n").first ?? "")
        let port = line.firstMatch(of: /127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) }
        guard let port else {
            process.terminate()
            throw ToolTestError("no ready line with a port: \(line)")
        }
        return Running(process: process, port: port, readyLine: line)
    }

    struct ToolTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func request(_ method: String, port: Int, path: String, body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("It prints one ready line with its URL, serves the REST API, keeps --data across restarts and exits 0 on SIGTERM")
    func servesAndPersists() async throws {
        let scratch = try TemporaryDirectory("database-emulator")
        defer { scratch.cleanUp() }
        let data = scratch.path + "/db"

        let first = try Self.start(["--data", data])
        #expect(first.readyLine.hasPrefix("Realtime Database server ready: http://127.0.0.1:\(first.port)"))
        let put = try await Self.request("PUT", port: first.port, path: "/rooms/r1.json?ns=demo", body: #"{"title":"Lobby","size":3}"#)
        #expect(put.0 == 200)
        let bad = try await Self.request("PUT", port: first.port, path: "/rooms/r1.json?ns=demo", body: "{not json")
        #expect(bad.0 == 400)
        #expect(bad.1.contains("error"))
        #expect(first.stop() == 0)

        let second = try Self.start(["--data", data])
        let get = try await Self.request("GET", port: second.port, path: "/rooms/r1/title.json?ns=demo")
        #expect(get.0 == 200)
        #expect(get.1 == #""Lobby""#)
        #expect(second.stop() == 0)
    }

    @Test("A port out of range is a usage error (exit 2)")
    func badPort() throws {
        let run = try Cairn.run(["database-emulator", "--port", "70000"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--port"))
    }
}
