import ArgumentParser
import CairnDatabaseCore
import SegmentLog

// The Realtime Database side of `inspect`, `dump`, `verify` and `stats`: each command asks
// ``DatabaseCacheDetection/isDatabaseCache(at:)`` first and, for such a cache, formats what a
// ``DatabaseCacheInspector`` returns. Exit statuses as for Firestore caches (CommandSupport.swift).

/// Opens `directory` with a ``DatabaseCacheInspector``, runs `body`, closes it; a ``PersistenceError`` is printed
/// on stderr and ends the command with exit status 1 for damage and 2 for anything else.
func withDatabaseInspector<T>(_ directory: String, _ body: (DatabaseCacheInspector) throws(PersistenceError) -> T) throws -> T {
    do throws(PersistenceError) {
        let inspector = try DatabaseCacheInspector.open(at: directory)
        defer { inspector.close() }
        return try body(inspector)
    } catch {
        let damage = error.isDamage || error.code == .corruptRecord
        printError("cairn: \(damage ? "corruption" : "error"): \(error.message)")
        throw ExitCode(damage ? 1 : 2)
    }
}

/// Ends `command` (`outbox`, `compact`, `gc`: Firestore caches only) with exit status 2 when `directory` holds a
/// Realtime Database cache, before anything opens it.
func refuseDatabaseCache(_ directory: String, command: String) throws {
    guard DatabaseCacheDetection.isDatabaseCache(at: directory) else { return }
    printError("cairn: error: \(directory) is a Realtime Database cache; `cairn \(command)` works on Firestore caches only "
               + "(inspect, dump, verify and stats read both)")
    throw ExitCode(2)
}

enum DatabaseCacheText {
    /// `cairn inspect` for a Realtime Database cache.
    static func inspect(_ report: DatabaseCacheReport) -> String {
        var lines = ["Realtime Database cache, session \(report.session)", ""]
        lines += segments(report.statistics)
        lines.append("")
        lines.append("tracked queries: \(report.queries.count) (\(report.inactiveQueries) inactive)")
        var queryRows = [["id", "path", "params", "complete", "active", "last use", "tracked keys"]]
        for q in report.queries {
            queryRows.append([
                String(q.query.id), q.query.query.path.description, q.query.query.identifier,
                q.query.isComplete ? "complete" : "incomplete", q.query.isActive ? "active" : "inactive",
                "LSN \(q.query.lastUse)", q.trackedKeys.map(String.init) ?? "-",
            ])
        }
        if !report.queries.isEmpty { lines.append(indent(formatTable(queryRows))) }
        lines.append("")
        lines.append("pending writes: \(report.writes.count)")
        var writeRows = [["id", "path", "kind", "bytes"]]
        for w in report.writes {
            let kind = w.write.overwrite != nil ? "overwrite" : "merge (\(w.write.merge?.count ?? 0) children)"
            writeRows.append([String(w.write.id), w.write.path.description, kind, String(w.recordBytes)])
        }
        if !report.writes.isEmpty { lines.append(indent(formatTable(writeRows))) }
        lines.append("")
        let threshold = report.threshold.map { formatBytes($0) } ?? "unlimited"
        let share = report.threshold.flatMap { $0 > 0 ? " (\(formatPercent(Double(report.liveBytes) / Double($0))))" : nil } ?? ""
        lines.append("cache: \(report.liveBytes) B live\(share), threshold \(threshold); \(formatBytes(report.statistics.fileBytes)) on disk")
        lines.append("pruning: \(report.pruning)")
        return lines.joined(separator: "\n")
    }

    /// `cairn stats` for a Realtime Database cache: the log's statistics.
    static func stats(_ statistics: LogStatistics, threshold: UInt64?) -> String {
        var rows = [["segment", "state", "file bytes", "records", "live bytes", "dead bytes", "dead"]]
        for s in statistics.segments {
            rows.append([String(s.id), s.isActive ? "active" : "sealed", String(s.fileBytes), String(s.recordCount),
                         String(s.liveRecordBytes), String(s.deadRecordBytes), formatPercent(s.deadRatio)])
        }
        let over = threshold.map { statistics.liveRecordBytes > $0 } ?? false
        return [
            formatTable(rows), "",
            "\(statistics.liveRecordBytes) B live, \(statistics.deadRecordBytes) B dead, \(formatBytes(statistics.fileBytes)) on disk, "
                + "threshold \(threshold.map { formatBytes($0) } ?? "unlimited")" + (over ? ": over (cairn inspect says what the next pruning check does)" : ": under"),
            "next LSN \(statistics.nextLSN)",
        ].joined(separator: "\n")
    }

    /// `cairn verify` for a Realtime Database cache.
    static func verify(_ verification: DatabaseCacheVerification) -> String {
        var lines = ["segments: \(verification.segments)  frames: \(verification.frames)  records: \(verification.records)"]
        lines.append("records by kind: " + (verification.recordsByKind.isEmpty ? "none" : verification.recordsByKind.keys.sorted().map {
            "\($0) \(verification.recordsByKind[$0]!)" }.joined(separator: ", ")))
        if let replay = verification.replay { lines.append("replay: \(replay)") }
        lines += verification.damage.map { "damage: \($0)" }
        lines += verification.problems.map { "problem: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// The segment table of `inspect`.
    private static func segments(_ statistics: LogStatistics) -> [String] {
        var rows = [["segment", "state", "file bytes", "records", "record bytes", "live bytes", "dead bytes", "dead"]]
        for s in statistics.segments {
            rows.append([String(s.id), s.isActive ? "active" : "sealed", String(s.fileBytes), String(s.recordCount),
                         String(s.recordBytes), String(s.liveRecordBytes), String(s.deadRecordBytes), formatPercent(s.deadRatio)])
        }
        return ["segments: \(statistics.segments.count), \(formatBytes(statistics.fileBytes)) on disk", indent(formatTable(rows))]
    }

    /// `cairn dump` for a Realtime Database cache: every value of the server data by path (priorities as a
    /// `.priority` child, a leaf with one as `.value`), then the pending writes; with `json`, one object a line.
    static func dump(server: Node, writes: [PersistedWrite], json: Bool) -> [String] {
        var lines: [String] = []
        flatten(server.exportJSON(), at: "", into: &lines, json: json)
        for write in writes {
            let value: JSONValue
            let op: String
            if let overwrite = write.overwrite {
                op = "set"
                value = overwrite.exportJSON()
            } else {
                op = "update"
                var children: [String: JSONValue] = [:]
                for (relative, node) in write.merge ?? [] { children[String(relative.description.dropFirst())] = node.exportJSON() }
                value = .object(children)
            }
            lines.append(json
                ? Node.canonicalJSON(.object(["write": .int(Int64(write.id)), "op": .string(op), "path": .string(write.path.description), "value": value]))
                : "write \(write.id)  \(op)  \(write.path)  \(Node.canonicalJSON(value))")
        }
        return lines
    }

    private static func flatten(_ value: JSONValue, at path: String, into lines: inout [String], json: Bool) {
        if case .object(let members) = value {
            for key in members.keys.sorted() { flatten(members[key]!, at: path + "/" + key, into: &lines, json: json) }
            return
        }
        if case .null = value { return }
        let shown = path.isEmpty ? "/" : path
        lines.append(json
            ? Node.canonicalJSON(.object(["path": .string(shown), "value": value]))
            : "\(shown)  \(Node.canonicalJSON(value))")
    }
}
