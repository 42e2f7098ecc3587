// Output helpers: progress lines go to standard error so standard output holds only the report.

import Foundation

/// Progress and number formatting shared by the suites.
enum Console {
    /// Writes one progress line to standard error.
    static func progress(_ message: String) {
        FileHandle.standardError.write(Data(("[cairn-bench] " + message + "\n").utf8))
    }

    /// A count or rate with an SI suffix and three significant digits: `20`, `9.87`, `12.3k`, `1.23M`.
    static func compact(_ value: Double) -> String {
        let magnitude = abs(value)
        let (scaled, suffix): (Double, String) =
            magnitude >= 1e9 ? (value / 1e9, "G") : magnitude >= 1e6 ? (value / 1e6, "M")
            : magnitude >= 1e3 ? (value / 1e3, "k") : (value, "")
        let digits = abs(scaled) >= 100 || (suffix.isEmpty && scaled == scaled.rounded()) ? 0 : abs(scaled) >= 10 ? 1 : 2
        return String(format: "%.\(digits)f", scaled) + suffix
    }

    /// Bytes as MB (10^6), one decimal.
    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    /// Seconds with three significant digits, or milliseconds below one second.
    static func seconds(_ duration: Duration) -> String {
        duration.seconds >= 1 ? String(format: "%.3g s", duration.seconds) : String(format: "%.3g ms", duration.seconds * 1000)
    }
}
