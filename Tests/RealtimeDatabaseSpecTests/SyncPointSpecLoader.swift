import CairnDatabaseCore
import Foundation
import Synchronization
import Testing

/// One sync-point case: a name and its steps, each step's JSON kept as decoded.
struct SyncPointCase: Sendable {
    var file: String
    var name: String
    var steps: [[String: JSONValue]]
}

/// A spec file or case that cannot be read, naming the file and what is wrong.
struct SpecFormatError: Error, CustomStringConvertible {
    var context: String
    var message: String
    var description: String { "\(context): \(message)" }
}

/// Finds and parses the Realtime Database spec files: `$CAIRN_RTDB_SPEC_DIR` when set, else
/// `../shared/rtdb-spec` beside the package root.
///
/// ```swift
/// guard SyncPointSpecLoader.folderIsPresent(SyncPointSpecLoader.specDirectory) else { return }
/// let cases = try SyncPointSpecLoader.loadAll()
/// ```
enum SyncPointSpecLoader {
    /// The package root: this file is `Tests/RealtimeDatabaseSpecTests/SyncPointSpecLoader.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var specDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["CAIRN_RTDB_SPEC_DIR"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, isDirectory: true)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/rtdb-spec", isDirectory: true)
    }

    private static let reportedMissing = Mutex(false)

    /// True when `directory` exists. Otherwise one line is printed and the caller skips; under `CI=true` the
    /// calling test fails instead.
    static func folderIsPresent(_ directory: URL, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return true
        }
        let message = "rtdb-spec: skipped, the folder \(directory.path) does not exist (Firebase's syncPointSpec.json, "
            + "../shared/rtdb-spec beside the checkout; CAIRN_RTDB_SPEC_DIR points elsewhere)"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("\(message)", sourceLocation: sourceLocation)
        } else if !reportedMissing.withLock({ reported in defer { reported = true }; return reported }) {
            print(message)
        }
        return false
    }

    /// Every case of every `*.json` file in `directory`, files in name order, cases in file order.
    static func loadAll(from directory: URL = specDirectory) throws -> [SyncPointCase] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw SpecFormatError(context: directory.path, message: "cannot list the folder (\(error))")
        }
        return try names.filter { $0.hasSuffix(".json") }.sorted().flatMap { name in
            try load(directory.appendingPathComponent(name))
        }
    }

    static func load(_ url: URL) throws -> [SyncPointCase] {
        let file = url.lastPathComponent
        let decoded: JSONValue
        do {
            decoded = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
        } catch {
            throw SpecFormatError(context: file, message: "not readable as JSON (\(error))")
        }
        guard case .array(let cases) = decoded else {
            throw SpecFormatError(context: file, message: "expected an array of cases")
        }
        return try cases.enumerated().map { position, value in
            guard let object = value.objectValue, case .string(let name)? = object["name"],
                  case .array(let steps)? = object["steps"] else {
                throw SpecFormatError(context: "\(file) case \(position)", message: "a case needs a string \"name\" and an array \"steps\"")
            }
            let stepObjects = try steps.enumerated().map { index, step in
                guard let object = step.objectValue else {
                    throw SpecFormatError(context: "\(file) \"\(name)\" step \(index)", message: "a step must be an object")
                }
                return object
            }
            return SyncPointCase(file: file, name: name, steps: stepObjects)
        }
    }
}
