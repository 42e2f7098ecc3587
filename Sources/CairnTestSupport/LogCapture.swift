import Logging
import Synchronization

/// Reads what the test process logs through swift-log. swift-log takes one `LoggingSystem.bootstrap` per
/// process, so the first capture bootstraps a handler that hands every line (every label, every level its
/// logger lets through) to the captures running at the time; a capture keeps what arrives between ``start()``
/// and ``stop()``. Tests that switch a product's logging on take ``ExclusiveTestSection/logging``, so that
/// no other test switches it off meanwhile. Anything else in the test process that logs through swift-log must
/// read it through this capture too: a second bootstrap would stop the process.
///
/// ```swift
/// let capture = LogCapture.start()
/// Firestore.enableLogging(true)
/// ...
/// let lines = capture.stop()
/// #expect(lines.contains { $0.label == "cairn.firestore.remote" && $0.level == "debug" })
/// ```
package final class LogCapture: Sendable {
    /// One logged line: the logger's label, its level (`Logger.Level.rawValue`: "debug", "notice", ...) and the
    /// message.
    package struct Line: Sendable, CustomStringConvertible {
        package var label: String
        package var level: String
        package var message: String

        package var description: String { "\(level) \(label): \(message)" }
    }

    private static let running = Mutex<[ObjectIdentifier: LogCapture]>([:])
    private static let bootstrapped: Void = {
        LoggingSystem.bootstrap { label in CapturingLogHandler(label: label) }
    }()

    private let captured = Mutex<[Line]>([])

    private init() {}

    /// Starts a capture (bootstrapping the process's handler the first time).
    package static func start() -> LogCapture {
        _ = bootstrapped
        let capture = LogCapture()
        running.withLock { $0[ObjectIdentifier(capture)] = capture }
        return capture
    }

    /// The lines captured so far.
    package var lines: [Line] { captured.withLock { $0 } }

    /// Ends the capture and returns its lines.
    package func stop() -> [Line] {
        _ = Self.running.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
        return lines
    }

    fileprivate static func deliver(_ line: Line) {
        let captures = running.withLock { Array($0.values) }
        for capture in captures { capture.captured.withLock { $0.append(line) } }
    }
}

extension ExclusiveTestSection {
    /// Tests that switch `Firestore.enableLogging` (process-wide) on and read the lines.
    package static let logging = ExclusiveTestSection()
}

/// The handler ``LogCapture`` bootstraps: it keeps its logger's label and level and hands each line on.
private struct CapturingLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        LogCapture.deliver(LogCapture.Line(label: label, level: event.level.rawValue, message: "\(event.message)"))
    }
}
