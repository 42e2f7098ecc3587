import ArgumentParser
import Foundation
import SegmentLog

// What the log-inspection commands share: opening a log read-only, warning when a writer holds it, turning
// storage errors into a message and an exit status, and printing sizes and bytes for people.

/// Prints a warning on stderr when a process holds the log's lock. Read-only commands still work then: they
/// see the commits made up to the moment they open the log.
func warnIfWriterHoldsLog(_ directory: String) {
    if let holder = SegmentLog.lockHolder(at: directory) {
        printError("warning: a writer (\(holder)) holds \(directory); reading the commits made so far, without the lock")
    }
}

/// Opens the log without the lock and without changing a byte, after warning when a writer holds it.
func openReadOnly(_ directory: String) throws -> SegmentLog {
    warnIfWriterHoldsLog(directory)
    var configuration = SegmentLog.Configuration()
    configuration.readOnly = true
    return try SegmentLog.open(at: directory, configuration: configuration)
}

/// Runs `body`; a ``StorageError`` is printed on stderr and ends the command with exit status 1 for
/// corruption and 2 for anything else (not a log, locked, I/O, ...), as `cairn verify` does.
func reportingStorageErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StorageError {
        if error.code == .corruption {
            printError("corruption: \(error)")
            throw ExitCode(1)
        }
        printError("error: \(error)")
        throw ExitCode(2)
    }
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
    return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
}

/// `0.25` → `25.0%`.
func formatPercent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }

/// Bytes as text when they are valid UTF-8 without control characters, else as lowercase hex.
func describeBytes<C: Collection<UInt8>>(_ bytes: C) -> (text: String, encoding: String) {
    if let text = String(validating: Array(bytes), as: UTF8.self),
        !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    {
        return (text, "utf8")
    }
    return (bytes.map { String(format: "%02x", $0) }.joined(), "hex")
}

/// The first `limit` bytes of `bytes`, described as ``describeBytes(_:)`` does. A UTF-8 character cut by the
/// limit is left out rather than turning the whole prefix into hex.
func describePrefix<C: Collection<UInt8>>(_ bytes: C, limit: Int) -> (text: String, encoding: String) {
    let prefix = Array(bytes.prefix(limit))
    guard prefix.count < bytes.count else { return describeBytes(prefix) }
    for cut in 0...min(3, prefix.count) {
        let candidate = describeBytes(prefix.dropLast(cut))
        if candidate.encoding == "utf8" { return candidate }
    }
    return describeBytes(prefix)
}

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
