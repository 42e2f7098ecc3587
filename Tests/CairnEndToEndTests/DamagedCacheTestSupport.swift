import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import Testing

/// A persistent cache with data worth saving, written offline through the public API, and the ways its files
/// get damaged. The cache spans two segments: six filler documents of about 450 KB (random, so compression
/// cannot shrink them) fill the first 2 MiB segment, which seals; the cities and their pending writes follow
/// in the active segment, so damage to the sealed segment leaves them intact.
enum DamagedCacheFixture {
    /// The ways the tests damage a terminated cache.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case deleteManifest
        case flipManifestBytes
        case zeroManifest
        case garbageSealedSegment
        case emptySealedSegment
        case deleteSealedSegment

        var testDescription: String { rawValue }

        /// Whether every record survives (salvage reads every segment file when the manifest is damaged).
        var keepsEverything: Bool {
            switch self {
            case .deleteManifest, .flipManifestBytes, .zeroManifest: true
            case .garbageSealedSegment, .emptySealedSegment, .deleteSealedSegment: false
            }
        }

        /// Words the reported damage contains.
        var reportedAs: String {
            switch self {
            case .deleteManifest: "MANIFEST is missing"
            case .flipManifestBytes: "MANIFEST"
            case .zeroManifest: "MANIFEST is not a Cairn segment-log manifest"
            case .garbageSealedSegment, .emptySealedSegment, .deleteSealedSegment: "segment 1"
            }
        }

        /// Damages the cache in `directory` (no instance may hold it).
        func apply(to directory: URL) throws {
            let manifest = directory.appendingPathComponent("MANIFEST")
            let sealed = try DamagedCacheFixture.segments(in: directory).first!
            switch self {
            case .deleteManifest:
                try FileManager.default.removeItem(at: manifest)
            case .flipManifestBytes:
                var bytes = try Data(contentsOf: manifest)
                for offset in stride(from: bytes.count / 2, to: bytes.count / 2 + 4, by: 1) { bytes[offset] ^= 0xFF }
                try bytes.write(to: manifest)
            case .zeroManifest:
                let size = try Data(contentsOf: manifest).count
                try Data(count: size).write(to: manifest)
            case .garbageSealedSegment:
                let size = try Data(contentsOf: sealed).count
                var random = SystemRandomNumberGenerator()
                try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: sealed)
            case .emptySealedSegment:
                try Data().write(to: sealed)
            case .deleteSealedSegment:
                try FileManager.default.removeItem(at: sealed)
            }
        }
    }

    static let fillerCount = 6

    /// Writes the fillers, then cities SF (set, then an increment: visits 3) and LA, all offline and pending, and
    /// checks that the cache spans more than one segment.
    static func writeOfflineData(_ env: EndToEndEnvironment) async throws {
        var random = SystemRandomNumberGenerator()
        for index in 0..<fillerCount {
            let bytes = (0..<340_000).map { _ in UInt8.random(in: 0...255, using: &random) }
            env.db.collection("fill").document("f\(index)").setData(["blob": Data(bytes).base64EncodedString()], completion: nil)
        }
        let cities = env.db.collection("cities")
        cities.document("SF").setData(["name": "San Francisco", "visits": 1], completion: nil)
        cities.document("SF").updateData(["visits": FieldValue.increment(Int64(2))], completion: nil)
        cities.document("LA").setData(["name": "Los Angeles"], completion: nil)
        let written = try await cities.getDocuments(source: .cache)
        #expect(written.documents.map(\.documentID) == ["LA", "SF"])
        try #require(try segments(in: env.directory).count >= 2, "the fillers fill a sealed segment")
    }

    /// The cache's segment files, by id (the first is sealed once there are two).
    static func segments(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".seg") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }

    /// The siblings `<directory>.damaged-<time>` recovery kept.
    static func damagedCopies(of directory: URL) throws -> [URL] {
        let parent = directory.deletingLastPathComponent()
        return try FileManager.default.contentsOfDirectory(atPath: parent.path)
            .filter { $0.hasPrefix(directory.lastPathComponent + ".damaged-") }.sorted()
            .map { parent.appendingPathComponent($0) }
    }

    /// Every file of `directory` with its exact bytes.
    static func snapshot(of directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    static func permissions(of url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Chooses what the (not yet started) instance does with a damaged cache.
    static func setOnDamage(_ handling: DamagedCacheHandling, _ env: EndToEndEnvironment) {
        let settings = env.db.settings
        settings.cacheSettings = PersistentCacheSettings(
            sizeBytes: NSNumber(value: 100 * 1024 * 1024), directory: env.directory, onDamage: handling)
        env.db.settings = settings
    }

    /// Removes the damaged copies and the cache.
    static func tearDown(_ env: EndToEndEnvironment) async {
        for copy in (try? damagedCopies(of: env.directory)) ?? [] { try? FileManager.default.removeItem(at: copy) }
        await env.tearDown()
    }
}
