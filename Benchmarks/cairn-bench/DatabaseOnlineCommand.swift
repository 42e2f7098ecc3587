// `cairn-bench database online`: the Realtime Database over the network, through the local server
// (CairnDatabaseServer) in this process on a loopback port. Measured, not asserted, and no baseline:
//   listener_latency_online  client A `setValue`s a number, client B's `value` listener fires with it (median and
//                            p95 over N sequential writes, after a warm-up)
//   initial_load             a server pre-filled through its core with a ~10 MiB tree; a fresh, connected client's
//                            first `value` event on the root (memory only, and with persistence on in a fresh
//                            directory); time per run and the tree's bytes as JSON
// Output: a table on standard output, progress on standard error, `--json` in the query suite's key style:
// `{"suite": "database_online", "workloads": [{"name", "unit", "higher_is_better", "median", "p95", "min", "max",
// "samples", "bytes", "note"}]}`.

import ArgumentParser
import CairnDatabase
import CairnDatabaseCore
import CairnTestSupport
import Foundation

struct DatabaseOnlineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "online",
        abstract: "The Realtime Database through the local server: a listener's latency, the initial load of a 10 MiB tree.",
        discussion: """
            Starts the local server (CairnDatabaseServer) in this process on a free loopback port; the clients are \
            Database instances of their own apps pointed at it with useEmulator. Server, clients and their event \
            loops share this machine's cores: figures include the server's work.
            """)

    @Option(help: "Writes whose listener latency is measured (after 20 not measured).")
    var writes = 500

    @Option(help: "Timed initial loads per variant (memory only, persistence on).")
    var loads = 5

    @Option(help: "Multiplies the tree's size (10 MiB at 1; 0.05 is a quick smoke test).")
    var scale = 1.0

    @Option(help: "Also write the results as JSON to this path.")
    var json: String?

    func validate() throws {
        guard (1...100_000).contains(writes) else { throw ValidationError("--writes must be between 1 and 100000") }
        guard loads >= 1 else { throw ValidationError("--loads must be at least 1") }
        guard scale > 0, scale.isFinite, scale <= 10 else { throw ValidationError("--scale must be a number in (0, 10]") }
    }

    func run() throws {
        let scratch = try ScratchDirectory()
        defer { try? scratch.removeAll() }
        let server = try BenchDatabaseServer()
        defer { server.stop() }
        Console.progress("local server on 127.0.0.1:\(server.port); \(writes) writes, \(loads) loads per variant, scale \(scale)")

        var results: [OnlineResult] = []
        results.append(try listenerLatency(server))
        let children = max(10, Int((10_240 * scale).rounded()))
        try server.fill(DatabasePath(keys: ["items"]), with: Node(children: (0..<children).map {
            NamedNode(String(format: "k%05d", $0), Node(leaf: .string(Self.payload($0))))
        }))
        let bytes = try server.jsonBytes()
        Console.progress("server filled: \(children) children, \(Console.megabytes(bytes)) as JSON")
        for persistent in [false, true] {
            results.append(try initialLoad(server, bytes: bytes, children: children, persistent: persistent, scratch: scratch))
        }
        let report = OnlineReport(results: results)
        print(report.table(), terminator: "")
        if let json {
            try report.json().write(to: URL(fileURLWithPath: json))
            Console.progress("wrote \(json)")
        }
    }

    /// Client A writes 0, 1, 2, ... to one location, each after client B's listener saw the one before.
    private func listenerLatency(_ server: BenchDatabaseServer) throws -> OnlineResult {
        let writer = server.client(), reader = server.client()
        defer { writer.close(); reader.close() }
        try writer.waitUntilConnected()
        try reader.waitUntilConnected()
        let seen = LatencyProbe()
        let location = "latency/value"
        reader.database.reference(withPath: location).observe(.value) { seen.saw($0.value as? Int) }
        try seen.wait(for: nil, "the listener's first value")
        let warmUp = 20
        var samples: [Double] = []
        for i in 0..<(warmUp + writes) {
            let start = ContinuousClock.now
            writer.database.reference(withPath: location).setValue(i)
            let fired = try seen.wait(for: i, "write \(i) at client B")
            if i >= warmUp { samples.append((fired - start).seconds * 1000) }
            if (i + 1) % 100 == 0 { Console.progress("listener_latency_online: \(i + 1) of \(warmUp + writes) writes") }
        }
        return OnlineResult(
            name: "listener_latency_online", unit: "ms", values: samples, bytes: nil,
            note: "client A setValue(i) → local server (same process) → client B's value listener fires with i; "
                + "\(writes) sequential writes after \(warmUp) unmeasured, two connected clients, memory only")
    }

    /// A new client per run, connected first; then the time from `observe(.value)` on the root to its event.
    private func initialLoad(_ server: BenchDatabaseServer, bytes: Int, children: Int, persistent: Bool,
                             scratch: ScratchDirectory) throws -> OnlineResult {
        let name = persistent ? "initial_load_persistent" : "initial_load"
        var samples: [Double] = []
        for run in 1...loads {
            let directory = persistent ? try scratch.freshDirectory("online-cache") : nil
            let client = server.client(persistenceDirectory: directory)
            defer { client.close() }
            try client.waitUntilConnected()
            let loaded = DispatchSemaphore(value: 0)
            let count = LockedCount()
            let start = ContinuousClock.now
            client.database.reference().observeSingleEvent(of: .value) { snapshot in
                count.set(Int(snapshot.childSnapshot(forPath: "items").childrenCount))
                loaded.signal()
            }
            guard loaded.wait(timeout: .now() + 300) == .success else { throw BenchError("\(name): no value event in 300 s") }
            let elapsed = ContinuousClock.now - start
            guard count.value == children else {
                throw BenchError("\(name): the root's value held \(count.value) items, not \(children)")
            }
            samples.append(elapsed.seconds * 1000)
            Console.progress("\(name): run \(run) \(Console.seconds(elapsed))")
        }
        let mode = persistent ? "persistence on (a fresh cache directory: the tree is also written to the segment log)"
            : "memory only (Firebase's default)"
        return OnlineResult(
            name: name, unit: "ms", values: samples, bytes: bytes,
            note: "observe(.value) on the root of a fresh connected client → its event: \(children) children of ~1 KiB, "
                + "\(Console.megabytes(bytes)) as JSON, sent by the local server in one message split into 16 KiB "
                + "frames; \(mode)")
    }

    /// 1,000 letters that LZ4 cannot squeeze away, different for each `seed`.
    static func payload(_ seed: Int) -> String {
        var random = SeededRandom(seed: UInt64(seed) &+ 1)
        return String((0..<1000).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })
    }
}
