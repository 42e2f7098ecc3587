import CairnTestSupport
import Foundation
import Testing
@testable import SegmentLog

/// A real writer process (`cairn crash-writer`, durable commits) is killed with SIGKILL at random moments;
/// the log is reopened after each kill and checked against what the writer acknowledged on its pipe.
/// `CAIRN_KILL_ITERATIONS` sets the number of kills (default 5; hundreds for a soak run).
@Suite("Process kill")
struct ProcessKillTests {
    /// The `cairn` executable built next to this test bundle.
    static var writerPath: String? {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("cairn").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    @Test("every batch a SIGKILLed writer acknowledged survives, and only whole batches appear")
    func killWriter() throws {
        let writer = try #require(Self.writerPath, "build the cairn executable first (swift build builds it)")
        let iterations = Int(ProcessInfo.processInfo.environment["CAIRN_KILL_ITERATIONS"] ?? "") ?? 5
        let seed = UInt64(ProcessInfo.processInfo.environment["CAIRN_KILL_SEED"] ?? "") ?? UInt64(Date().timeIntervalSince1970)
        var random = SeededRandom(seed: seed)
        let directory = TemporaryDirectory("kill")
        var acknowledged = -1
        for iteration in 0..<iterations {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: writer)
            process.arguments = ["crash-writer", directory.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            Thread.sleep(forTimeInterval: Double(20 + random.next() % 250) / 1000)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the writer was killed, not finished")
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            if let last = output.split(separator: "\n").compactMap({ Int($0) }).last { acknowledged = max(acknowledged, last) }

            let log = try SegmentLog.open(at: directory.path)
            switch try CrashWriterWorkload.check(log) {
            case .failure(let failure):
                Issue.record("kill \(iteration) (seed \(seed)): \(failure)")
            case .success(let batches):
                #expect(batches - 1 >= acknowledged, "kill \(iteration) (seed \(seed)): acknowledged batch \(acknowledged) lost; \(batches) present")
                #expect(batches - 1 <= acknowledged + 1, "kill \(iteration): at most the in-flight batch is extra")
                // What survived is the next writer's starting point, even the unacknowledged in-flight batch.
                acknowledged = max(acknowledged, batches - 1)
            }
            try log.close()
        }
        print("process kill: \(iterations) SIGKILLs (seed \(seed)), all \(acknowledged + 1) acknowledged batches present")
        #expect(acknowledged >= 0, "the writer acknowledged something")
    }
}
