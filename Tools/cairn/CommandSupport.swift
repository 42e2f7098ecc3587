import ArgumentParser
import Foundation
import CairnLocalStore

// What the cache commands share: opening a cache read-only through the inspector, turning inspection errors
// into a message on stderr and an exit status, and printing sizes and tables for people.
//
// Exit status of every command: 0 success, 1 damage found (corruption), 2 anything else that stopped it
// (usage, not a cache, locked by a running app, a newer format, I/O).

/// Opens `directory` with a ``CacheInspector``, runs `body`, closes it; errors end the command as described
/// at the top of this file.
func withInspector<T>(_ directory: String, _ body: (CacheInspector) throws -> T) throws -> T {
    try reportingInspectionErrors {
        let inspector = try CacheInspector.open(at: directory)
        defer { inspector.close() }
        return try body(inspector)
    }
}

/// Runs `body`; an ``InspectionError`` is printed on stderr and ends the command with exit status 1 for
/// corruption and 2 for anything else.
func reportingInspectionErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as InspectionError {
        printError("cairn: \(error.code == .corruption ? "corruption" : "error"): \(error.message)")
        throw ExitCode(error.code == .corruption ? 1 : 2)
    }
}

/// Writes a line to stderr, after what stdout holds so far, so that the two read in order on a terminal.
func printError(_ text: String) {
    fflush(nil)
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// `1536` → `1.5 KiB`.
func formatBytes(_ count: UInt64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(count)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(count) B" : String(format: "%.1f ", value) + units[unit]
}

/// A threshold for people: `100.0 MiB`, or `unlimited` for -1.
func formatThreshold(_ threshold: Int64) -> String {
    threshold < 0 ? "unlimited" : formatBytes(UInt64(threshold))
}

/// `0.25` → `25.0%`.
func formatPercent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }

/// Left-aligns the first column and right-aligns the others, two spaces apart.
func formatTable(_ rows: [[String]]) -> String {
    guard let columns = rows.map(\.count).max() else { return "" }
    let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { column, cell in
            let padding = String(repeating: " ", count: widths[column] - cell.count)
            return column == 0 ? cell + padding : padding + cell
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}

/// The `--threshold` option of `inspect` and `stats`: the app's cache-size threshold, which the cache does not
/// store. Its default is the SDK's: 100 MiB for Firestore (`cacheSizeBytes`), 10 MiB for the Realtime Database
/// (`persistenceCacheSizeBytes`).
struct ThresholdOption: ParsableArguments {
    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "The app's cache-size threshold in bytes, to compare the cache's bytes with (-1: unlimited; default: 104857600 for Firestore, 10485760 for the Realtime Database).",
        valueName: "bytes"))
    var value: Int64?

    /// For a Firestore cache (-1: unlimited).
    var threshold: Int64 { value ?? 100 << 20 }

    /// For a Realtime Database cache (nil: unlimited).
    var databaseThreshold: UInt64? {
        guard let value else { return 10 << 20 }
        return value < 0 ? nil : UInt64(value)
    }

    func validate() throws {
        guard (value ?? 0) >= -1 else { throw ValidationError("--threshold must be a byte count, or -1 for unlimited") }
    }
}
