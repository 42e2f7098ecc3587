// The manifest of a fixture-cache entry (`manifest.json` next to the entry's `data` directory): what the entry
// holds — the engine, the document count, the corpus' fingerprint and the engine's layout, which together decide
// every byte a load writes — and each file's size and CRC32C. It is written last, before the entry is renamed into
// place; an entry without a readable manifest is incomplete and is never used. Everything read from it is checked:
// known format, sane numbers, relative paths that stay inside the entry.

import Foundation

/// What a loaded cache is: equal identities mean equal loads.
struct FixtureIdentity: Equatable {
    /// `cairn`, `sqlite` or `leveldb`.
    let engine: String
    let documents: Int
    /// ``QueryCorpus/fingerprint``: generator version, seed, index configuration and a digest of sample documents.
    let corpus: String
    /// The engine's ``QueryEngine/layout``.
    let layout: String

    /// The entry's directory name inside the cache, e.g. `sqlite-1000000`.
    var entryName: String { "\(engine)-\(documents)" }
}

/// The contents of `manifest.json`.
struct FixtureManifest: Codable, Equatable {
    static let fileName = "manifest.json"
    static let currentFormat = 1
    /// Larger manifests are refused unread.
    static let maximumBytes = 16 << 20

    var format: Int
    var engine: String
    var documents: Int
    var corpus: String
    var layout: String
    /// Seconds the load took, for the progress line of a later run.
    var loadSeconds: Double
    var directories: [String]
    var files: [FixtureFile]

    init(identity: FixtureIdentity, loadSeconds: Double, directories: [String], files: [FixtureFile]) {
        format = Self.currentFormat
        engine = identity.engine
        documents = identity.documents
        corpus = identity.corpus
        layout = identity.layout
        self.loadSeconds = loadSeconds
        self.directories = directories
        self.files = files
    }

    /// Every file's bytes together.
    var totalBytes: Int { files.reduce(0) { $0 + $1.bytes } }

    /// Why this entry is not a load of `identity`, or nil when it is.
    func mismatch(with identity: FixtureIdentity) -> String? {
        if engine != identity.engine { return "it holds engine \(engine), not \(identity.engine)" }
        if documents != identity.documents { return "it holds \(documents) documents, not \(identity.documents)" }
        if corpus != identity.corpus { return "its corpus is \"\(corpus)\", this run's is \"\(identity.corpus)\"" }
        if layout != identity.layout { return "its layout is \"\(layout)\", this build's is \"\(identity.layout)\"" }
        return nil
    }

    /// Reads and checks the manifest at `path`.
    static func read(_ path: String) throws -> FixtureManifest {
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumBytes else { throw BenchError("\(path) has \(size) bytes, more than a manifest can have") }
        let manifest = try JSONDecoder().decode(FixtureManifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        guard manifest.format == currentFormat else {
            throw BenchError("\(path) has format \(manifest.format); this build reads format \(currentFormat)")
        }
        guard manifest.documents > 0, (0...1e7).contains(manifest.loadSeconds) else {
            throw BenchError("\(path) holds a document count or load time out of range")
        }
        for file in manifest.files where file.bytes < 0 {
            throw BenchError("\(path) gives \(file.path) a negative size")
        }
        for relative in manifest.directories + manifest.files.map(\.path) where !isInside(relative) {
            throw BenchError("\(path) names \(relative), which is not a path inside the entry")
        }
        return manifest
    }

    /// Writes the manifest to the new file `path` (mode 0600).
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw BenchError("cannot write \(path)")
        }
    }

    /// Whether `relative` is a non-empty relative path without `.` or `..` components.
    private static func isInside(_ relative: String) -> Bool {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        return !relative.hasPrefix("/") && !components.isEmpty
            && components.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
