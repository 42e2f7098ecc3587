import ArgumentParser
import Foundation
import SegmentLog

/// `cairn verify DIR`: reads every frame and reports damage. Exit 0 when clean, 1 on corruption, 2 on usage
/// or I/O errors.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every frame of a segment log without changing a byte.",
        discussion: "Exit status: 0 clean, 1 corruption found, 2 usage or I/O error.")

    @Argument(help: "The log directory.")
    var directory: String

    func run() throws {
        var configuration = SegmentLog.Configuration()
        configuration.readOnly = true
        let log: SegmentLog
        do {
            log = try SegmentLog.open(at: directory, configuration: configuration)
        } catch let error as StorageError where error.code == .corruption {
            printError("corruption: \(error)")
            throw ExitCode(1)
        } catch let error as StorageError {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        let report = try log.verify()
        print("segments: \(report.segments)  frames: \(report.frames)  records: \(report.records)")
        for damage in report.damage { print("damage: \(damage) [\(damage.path)]") }
        for problem in report.inconsistencies { print("inconsistency: \(problem)") }
        if report.isClean {
            print("clean")
        } else {
            throw ExitCode(1)
        }
    }
}

func printError(_ text: String) {
    var standardError = StandardError()
    print(text, to: &standardError)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { FileHandle.standardError.write(Data(string.utf8)) }
}
