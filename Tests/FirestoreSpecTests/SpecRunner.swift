import Foundation
import Testing

@testable import CairnCore

/// Runs one spec test in one variant: every step, then its expectations (reference/spec-tests.md §7).
enum SpecRunner {
    /// The outcome of one run: nil when it passed, else the first failing step and what was wrong.
    static func run(_ test: SpecTest, variant: SpecVariant) -> String? {
        if let problem = test.problem { return "cannot be read: \(problem)" }
        let driver: SpecDriver
        do {
            driver = try SpecDriver(config: test.config, variant: variant)
        } catch {
            return "setup: \(error)"
        }
        defer { driver.tearDown() }
        var expectations = SpecExpectations()
        for (index, step) in test.steps.enumerated() {
            do {
                try driver.perform(step.action)
            } catch {
                return "step \(index + 1) (\(step.action.kind)): \(error)"
            }
            let problems = driver.validate(step, &expectations)
            if !problems.isEmpty {
                return "step \(index + 1) (\(step.action.kind)): " + problems.joined(separator: "; ")
            }
        }
        return nil
    }
}

extension SpecAction {
    /// The step's name in the JSON, for messages.
    var kind: String {
        switch self {
        case .unsupported(let kind): kind
        default: String(describing: self).prefix { $0 != "(" }.description
        }
    }
}

/// What running every applicable test of some files gave.
struct SpecRunSummary {
    var passed = 0
    var failed = 0
    var skipped = 0
    /// `file :: full name :: variant` and the failure, for failures not listed in `KnownFailures.swift`.
    var unexpectedFailures: [String] = []
    /// Known failures that pass now.
    var unexpectedPasses: [String] = []
    /// One line per file: `name: memory passed/ran, persistent passed/ran`.
    var fileLines: [String] = []
}

extension SpecRunner {
    /// Runs every test of `files` that `selection` and its tags let run, in both variants. A test that is
    /// skipped is never run, so a step it uses that cannot be read (``SpecTest/problem``) fails nothing.
    static func runAll(_ files: [SpecFile], selection: SpecLoader.Selection, known: Set<String>) -> SpecRunSummary {
        var summary = SpecRunSummary()
        for file in files {
            var counts: [SpecVariant: (passed: Int, ran: Int)] = [:]
            for variant in SpecVariant.allCases {
                var variantCounts = (passed: 0, ran: 0)
                for test in file.tests {
                    if SpecLoader.skipReason(test, variant: variant, selection: selection) != nil {
                        summary.skipped += 1
                        continue
                    }
                    variantCounts.ran += 1
                    let name = "\(file.name) :: \(test.fullName) :: \(variant.rawValue)"
                    if let failure = run(test, variant: variant) {
                        summary.failed += 1
                        if !known.contains(name) { summary.unexpectedFailures.append("\(name)\n    \(failure)") }
                    } else {
                        summary.passed += 1
                        variantCounts.passed += 1
                        if known.contains(name) { summary.unexpectedPasses.append(name) }
                    }
                }
                counts[variant] = variantCounts
            }
            let line = SpecVariant.allCases.map { variant in
                "\(variant.rawValue) \(counts[variant]!.passed)/\(counts[variant]!.ran)"
            }
            summary.fileLines.append("\(file.name): \(line.joined(separator: ", "))")
        }
        return summary
    }
}

@Suite("Firestore spec tests")
struct FirestoreSpecTests {
    @Test("every applicable single-client spec test passes in the memory and persistent variants")
    func specTests() throws {
        let directory = SpecLoader.specDirectory
        guard SpecLoader.folderIsPresent(directory) else { return }
        let files = try SpecLoader.loadAll(from: directory)
        let summary = SpecRunner.runAll(files, selection: SpecLoader.Selection(files: files), known: KnownFailures.names)
        for line in summary.fileLines { print(line) }
        for failure in summary.unexpectedFailures {
            Issue.record("spec test failed (not in KnownFailures.swift): \(failure)")
        }
        for name in summary.unexpectedPasses {
            Issue.record("spec test passes now; remove it from KnownFailures.swift: \(name)")
        }
        print("firestore-spec: \(summary.passed) passed, \(summary.failed) failed, \(summary.skipped) skipped")
    }
}
