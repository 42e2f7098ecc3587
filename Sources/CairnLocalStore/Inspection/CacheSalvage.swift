import Foundation
import SegmentLog

/// Salvage into a new directory (`cairn salvage DIR --output NEW`): copies a damaged cache's files to `NEW`
/// and runs ``SegmentLog/salvage(at:configuration:)`` on the copy, which rewrites it from every intact frame.
/// The damaged directory is only read, so nothing is lost that a later, better tool could still recover, and
/// the salvaged copy can be checked before it replaces the original.
///
/// Salvage keeps whole batches only: a batch whose commit frame was lost goes with it, and after a damaged
/// range everything up to the next commit frame goes too (see SegmentLog+Salvage.swift). The cache's replay
/// then sees a consistent, older-or-partial state — a document's newer version may be lost while an older one
/// is kept; the server brings it back on the next sync.
///
/// ```swift
/// let result = try CacheSalvage.salvage(from: "/var/lib/app/cache", to: "/tmp/cache-salvaged")
/// print(result.report.recordsKept, result.report.damage.count, result.replayProblem ?? "opens")
/// ```
package enum CacheSalvage {
    /// What a salvage kept and lost, and whether the salvaged copy opens as a cache.
    package struct Result: Sendable {
        package var source: String
        package var output: String
        /// SegmentLog's report: records and frames kept, damaged ranges, frames of unfinished batches.
        package var report: SalvageReport
        /// Why the salvaged cache still cannot be replayed (an event that cannot be decoded), nil when it opens.
        package var replayProblem: String?
    }

    /// Salvages the log of `source` into the new directory `output`; `source` is never modified.
    /// `replayProblem` replays the salvaged copy as its kind of cache and says why it cannot be replayed (nil when
    /// it opens): by default as a Firestore cache (``firestoreReplayProblem(at:)``); the `cairn` tool passes a
    /// check that also knows Realtime Database caches, which live in another module.
    ///
    /// - Throws: ``InspectionError`` `.locked` when an app holds `source`, `.invalidArgument` when `output`
    ///   exists or lies inside `source`, `.notACache` when `source` holds no log, `.io` when copying fails.
    ///   On failure `output` is removed.
    package static func salvage(
        from source: String, to output: String,
        replayProblem: (String) throws -> String? = firestoreReplayProblem(at:)
    ) throws -> Result {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw InspectionError(.notACache, "\(source) is not a directory")
        }
        if let holder = SegmentLog.lockHolder(at: source) {
            throw InspectionError(.locked, "\(source) is in use by \(holder); close that app first")
        }
        guard !files.fileExists(atPath: output) else {
            throw InspectionError(.invalidArgument, "\(output) exists; give a new directory for the salvaged cache")
        }
        let sourcePath = URL(fileURLWithPath: source).standardizedFileURL.resolvingSymlinksInPath().path
        let outputParent = URL(fileURLWithPath: output).standardizedFileURL.deletingLastPathComponent()
            .resolvingSymlinksInPath().path
        guard outputParent != sourcePath && !outputParent.hasPrefix(sourcePath + "/") else {
            throw InspectionError(
                .invalidArgument, "\(output) is inside \(source), which salvage never changes; give a directory outside it")
        }
        let names: [String]
        do {
            names = try files.contentsOfDirectory(atPath: source).filter { $0 != "LOCK" }.sorted()
            try PrivateCopy.createDirectory(output)
        } catch {
            throw InspectionError(.io, "cannot salvage \(source) into \(output): \(error)")
        }
        do {
            for name in names {
                do {
                    try PrivateCopy.copyFile(source + "/" + name, to: output + "/" + name)
                } catch {
                    throw InspectionError(.io, "cannot copy \(source)/\(name) to \(output): \(error)")
                }
            }
            let report: SalvageReport
            do {
                report = try SegmentLog.salvage(at: output)
            } catch {
                throw InspectionError.wrap(error, directory: source)
            }
            return Result(source: source, output: output, report: report, replayProblem: try replayProblem(output))
        } catch {
            try? files.removeItem(atPath: output)
            throw error
        }
    }

    /// Why the Firestore cache in `directory` cannot be replayed, nil when it opens.
    package static func firestoreReplayProblem(at directory: String) throws -> String? {
        let inspector = try CacheInspector.open(at: directory)
        defer { inspector.close() }
        return inspector.replayProblem
    }
}
