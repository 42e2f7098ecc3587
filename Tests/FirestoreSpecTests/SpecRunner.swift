import Foundation
import Testing

@testable import Cairn

/// Runs one spec test in one variant: every step, then its expectations (reference/spec-tests.md §7).
enum SpecRunner {
    /// The outcome of one run: nil when it passed, else the first failing step and what was wrong.
    static func run(_ test: SpecTest, variant: SpecVariant) -> String? {
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

@Suite("Firestore spec tests")
struct FirestoreSpecTests {
    @Test("every applicable single-client spec test passes in the memory and persistent variants")
    func specTests() throws {
        let directory = SpecLoader.specDirectory
        guard FileManager.default.fileExists(atPath: directory.path) else {
            let message = "the spec-test folder \(directory.path) does not exist; set CAIRN_SPEC_DIR to the JSON files"
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("\(message)")
            } else {
                print("firestore-spec: skipped, \(message)")
            }
            return
        }
        let files = try SpecLoader.loadAll(from: directory)
        let selection = SpecLoader.Selection(files: files)
        let known = KnownFailures.names
        var passed = 0
        var failed = 0
        var skipped = 0
        var unexpectedFailures: [String] = []
        var unexpectedPasses: [String] = []
        for file in files {
            var counts: [SpecVariant: (passed: Int, ran: Int)] = [:]
            for variant in SpecVariant.allCases {
                var variantCounts = (passed: 0, ran: 0)
                for test in file.tests {
                    if SpecLoader.skipReason(test, variant: variant, selection: selection) != nil {
                        skipped += 1
                        continue
                    }
                    variantCounts.ran += 1
                    let name = "\(file.name) :: \(test.fullName) :: \(variant.rawValue)"
                    let failure = SpecRunner.run(test, variant: variant)
                    if let failure {
                        failed += 1
                        if !known.contains(name) { unexpectedFailures.append("\(name)\n    \(failure)") }
                    } else {
                        passed += 1
                        variantCounts.passed += 1
                        if known.contains(name) { unexpectedPasses.append(name) }
                    }
                }
                counts[variant] = variantCounts
            }
            let summary = SpecVariant.allCases.map { variant in
                "\(variant.rawValue) \(counts[variant]!.passed)/\(counts[variant]!.ran)"
            }
            print("\(file.name): \(summary.joined(separator: ", "))")
        }
        for failure in unexpectedFailures {
            Issue.record("spec test failed (not in KnownFailures.swift): \(failure)")
        }
        for name in unexpectedPasses {
            Issue.record("spec test passes now; remove it from KnownFailures.swift: \(name)")
        }
        print("firestore-spec: \(passed) passed, \(failed) failed, \(skipped) skipped")
    }
}
