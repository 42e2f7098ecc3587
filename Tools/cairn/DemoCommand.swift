import ArgumentParser
import Cairn
import CairnTestSupport
import Foundation
import SegmentLog

/// `cairn demo`: the README's main command. First the public API: when the Firestore emulator is installed (or
/// `--emulator` names a running one), the offline story against it (``EmulatorDemo``): listen, go offline, write,
/// restart, go online, see the writes reach the server; otherwise offline only (``OfflineDemo``): listen, write,
/// terminate, reopen, and see the documents and the outbox survive. Then a damaged cache (``DamagedCacheDemo``):
/// a bit flipped in the middle of the active segment, `cairn verify` naming it, and the app recovering with its
/// pending writes. Then the Realtime Database (``DatabaseDemo``): the local server in this process, the app in a
/// child process with persistence on — presence, offline writes, a SIGKILL and restart, the writes reaching the
/// server in order, the presence entry set to "offline" when the app is killed. Then the storage engine: a child process appends durable batches and is killed with SIGKILL mid-write; the log is
/// reopened and checked (every batch the child acknowledged is there, whole, and nothing else but at most the
/// batch that was in flight), and compaction gives space back. `--tls` runs ``TLSDemo`` instead: TLS through an
/// nginx proxy with a test CA, as a production connection is configured.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Firestore offline, restarted, synced; a damaged cache; the Realtime Database; SIGKILL and reopen the engine.")

    /// The parts of the demo, in the order they run.
    enum Part: String, ExpressibleByArgument, CaseIterable {
        case firestore, damagedCache = "damaged-cache", database, engine
    }

    @Option(help: "Log directory (default: a new temporary directory, removed afterwards).")
    var directory: String?

    @Option(help: "How long the writer runs before it is killed, in milliseconds.")
    var killAfter: Int = 700

    @Option(help: "How many times to kill and reopen.")
    var rounds: Int = 3

    @Option(help: "Use the Firestore emulator already running at host:port instead of starting one.")
    var emulator: EmulatorAddress?

    @Flag(help: "Run the public-API demo offline only, without the Firestore emulator.")
    var offline = false

    @Option(help: "Run only this part: firestore, damaged-cache, database (the Realtime Database) or engine.")
    var only: Part?

    @Flag(help: "Instead: the TLS demo, through nginx with a test CA in front of the emulator (needs nginx, openssl).")
    var tls = false

    func run() throws {
        if tls { return try runTLSDemo() }
        let parts = only.map { [$0] } ?? Part.allCases
        if parts.contains(.firestore) { try runPublicAPIDemo() }
        if parts.contains(.damagedCache) { try runDamagedCacheDemo() }
        if parts.contains(.database) { try runDatabaseDemo() }
        if parts.contains(.engine) { try runEngineDemo() }
    }

    /// A child process appends durable batches and is SIGKILLed, `rounds` times; the log is reopened and checked
    /// after each; then compaction.
    private func runEngineDemo() throws {
        let path = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("cairn-demo-\(getpid())").path
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: path) } }
        print("\nStorage engine under the cache: SIGKILL a writer mid-write, reopen, check — log directory: \(path)")
        var acknowledged = -1
        for round in 1...rounds {
            let (lastAck, status) = try runWriter(in: path, for: killAfter)
            acknowledged = max(acknowledged, lastAck)
            print("round \(round): the writer acknowledged durable batch \(lastAck) (\(status)), then got SIGKILL")
            let log = try SegmentLog.open(at: path)
            let report = log.recoveryReport
            let result = try CrashWriterWorkload.check(log)
            switch result {
            case .failure(let failure):
                print("  FAILED: \(failure)")
                throw ExitCode.failure
            case .success(let batches):
                let inFlight = batches - 1 - acknowledged
                print("  reopened: \(batches) whole batches (\(report.recordCount) records) in \(log.statistics.segments.count) segment(s);"
                      + " cut a torn tail of \(report.truncatedBytes) bytes")
                print("  every acknowledged batch is there; \(inFlight) more were written but not yet acknowledged")
                guard batches - 1 >= acknowledged else { throw ExitCode.failure }
            }
            try log.close()
        }
        try showCompaction(path)
    }

    /// The public-API part, on a cache in a temporary directory removed afterwards: the offline story against the
    /// Firestore emulator (``EmulatorDemo``) when there is one, else ``OfflineDemo`` with no server at all.
    private func runPublicAPIDemo() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-demo-api-\(getpid())")
        defer { try? FileManager.default.removeItem(at: cache) }
        if let emulator {
            return try runEmulatorDemo(emulator, cache: cache)
        }
        if offline {
            print("--offline: the public-API demo runs offline only, with no server")
            return try runOfflineDemo(cache: cache)
        }
        if let reason = FirestoreEmulator.missingReason {
            print("No Firestore emulator here (\(reason)): the public-API demo runs offline only, with no server")
            return try runOfflineDemo(cache: cache)
        }
        print("Starting the Firestore emulator (google-cloud-cli-firestore-emulator) on a free loopback port ...")
        let started: FirestoreEmulator
        do {
            started = try runBlocking { try await FirestoreEmulator.start() }
        } catch {
            print("The Firestore emulator did not start (\(error)): the public-API demo runs offline only, with no server")
            return try runOfflineDemo(cache: cache)
        }
        defer { started.stop() }
        let seconds = Double(started.startupDuration.components.seconds)
            + Double(started.startupDuration.components.attoseconds) / 1e18
        print("Firestore emulator ready on \(started.hostAndPort) after \(String(format: "%.1f", seconds)) s; it is stopped at the end")
        try runEmulatorDemo(EmulatorAddress(host: started.host, port: started.port), cache: cache)
    }

    /// `--tls`: ``TLSDemo`` against the emulator of `--emulator` or one started here; exit 1 when nginx, openssl
    /// or the emulator is missing, or a check fails.
    private func runTLSDemo() throws {
        if let reason = NginxTLSProxy.missingReason ?? (emulator == nil ? FirestoreEmulator.missingReason : nil) {
            print("The TLS demo cannot run here: \(reason)")
            throw ExitCode.failure
        }
        var started: FirestoreEmulator?
        defer { started?.stop() }
        let address: EmulatorAddress
        if let emulator {
            address = emulator
        } else {
            print("Starting the Firestore emulator (google-cloud-cli-firestore-emulator) on a free loopback port ...")
            let emulator = try runBlocking { try await FirestoreEmulator.start() }
            started = emulator
            address = EmulatorAddress(host: emulator.host, port: emulator.port)
        }
        let passed: Bool
        do {
            passed = try runBlocking {
                try await withThrowingTaskGroup(of: Bool?.self) { group in
                    group.addTask { try await TLSDemo.run(emulator: address) { printNow($0) } }
                    group.addTask {
                        try await Task.sleep(for: .seconds(180))
                        return nil
                    }
                    defer { group.cancelAll() }
                    guard let result = try await group.next(), let passed = result else {
                        throw FirestoreErrorCode(
                            .deadlineExceeded, "The TLS demo did not finish within 180 s (emulator at \(address)).")
                    }
                    return passed
                }
            }
        } catch {
            print("the TLS demo failed: \(error)")
            throw ExitCode.failure
        }
        if !passed { throw ExitCode.failure }
    }

    private func runEmulatorDemo(_ emulator: EmulatorAddress, cache: URL) throws {
        do {
            try runBlocking {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await EmulatorDemo.run(emulator: emulator, directory: cache) { print($0) }
                        return true
                    }
                    group.addTask {
                        try await Task.sleep(for: .seconds(180))
                        return false
                    }
                    defer { group.cancelAll() }
                    guard try await group.next() == true else {
                        throw FirestoreErrorCode(
                            .deadlineExceeded,
                            "The demo got no answer from the emulator at \(emulator) within 180 s; is it running?")
                    }
                }
            }
        } catch {
            print("the public-API demo failed: \(error)")
            throw ExitCode.failure
        }
    }

    private func runDamagedCacheDemo() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-demo-damaged-\(getpid())")
        print("")
        do {
            let pending = try runBlocking { try await DamagedCacheDemo.run(directory: cache) { print($0) } }
            guard pending > 0 && pending < DamagedCacheDemo.notes else {
                print("  FAILED: \(pending) of \(DamagedCacheDemo.notes) notes are still pending after the recovery")
                throw ExitCode.failure
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            print("the damaged-cache demo failed: \(error)")
            throw ExitCode.failure
        }
    }

    /// The Realtime Database part, on a cache directory removed afterwards. SIGPIPE is ignored: a client process
    /// that died makes a command sent to it fail instead of ending the demo.
    private func runDatabaseDemo() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-demo-database-\(getpid())")
        defer { try? FileManager.default.removeItem(at: cache) }
        signal(SIGPIPE, SIG_IGN)
        print("")
        do {
            try runBlocking { try await DatabaseDemo.run(directory: cache) { printNow($0) } }
        } catch {
            print("  FAILED: \(error)")
            throw ExitCode.failure
        }
    }

    private func runOfflineDemo(cache: URL) throws {
        do {
            _ = try runBlocking { try await OfflineDemo.run(directory: cache, appName: "cairn-demo") { print($0) } }
        } catch {
            print("the public-API demo failed: \(error)")
            throw ExitCode.failure
        }
    }

    /// Starts `cairn crash-writer`, lets it run, kills it; returns the last batch it acknowledged.
    private func runWriter(in path: String, for milliseconds: Int) throws -> (Int, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["crash-writer", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let acks = output.split(separator: "\n").compactMap { Int($0) }
        return (acks.last ?? -1, "\(acks.count) acknowledgements this round")
    }

    /// Rewrites half of the records, retires the old versions, and compacts sealed segments.
    private func showCompaction(_ path: String) throws {
        var configuration = SegmentLog.Configuration()
        configuration.segmentTargetSize = 1 << 20
        let log = try SegmentLog.open(at: path, configuration: configuration)
        defer { try? log.close() }
        var latest: [[UInt8]: RecordLocation] = [:]
        try log.scan { view in
            if let old = latest[view.keyBytes] { log.retire(old) }
            latest[view.keyBytes] = view.location
        }
        let keys = latest.keys.sorted { $0.lexicographicallyPrecedes($1) }
        let rewritten = keys.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        for start in stride(from: 0, to: rewritten.count, by: 500) {
            let chunk = rewritten[start..<min(start + 500, rewritten.count)]
            var batch = WriteBatch()
            for key in chunk { batch.append(kind: 1, key: key, value: Array("rewritten".utf8)) }
            for (key, location) in zip(chunk, try log.commit(batch)) {
                if let old = latest[key] { log.retire(old) }
                latest[key] = location
            }
        }
        // Roll to a new segment so everything above is sealed and can be compacted.
        try log.append(kind: 0, key: Array("~roll".utf8), value: [UInt8](repeating: 0, count: 1 << 20))
        let before = log.statistics
        let victims = log.compactionCandidates(minimumDeadRatio: 0.2)
        print("\ncompaction: \(before.segments.count) segments, \(before.fileBytes / 1024) KiB on disk,"
              + " \(before.deadRecordBytes * 100 / max(before.recordBytes, 1))% of record bytes dead;"
              + " compacting \(victims.count) segment(s)")
        guard !victims.isEmpty else { return }
        let compaction = try log.makeCompaction(of: victims) { latest[$0.keyBytes] == $0.location }
        var steps = 0
        while true {
            steps += 1
            guard let summary = try compaction.step(budget: 1 << 20) else { continue }
            for move in summary.relocations where latest[move.key] == move.from { latest[move.key] = move.to }
            let after = log.statistics
            print("  \(steps) steps: kept \(summary.recordsKept) records, dropped \(summary.recordsDropped);"
                  + " \(summary.bytesBefore / 1024) KiB of segments became \(summary.bytesAfter / 1024) KiB;"
                  + " \(after.fileBytes / 1024) KiB on disk now")
            break
        }
        let check = try log.verify()
        print("  verify: \(check.isClean ? "clean" : "DAMAGED") — \(check.frames) frames, \(check.records) records")
    }
}
