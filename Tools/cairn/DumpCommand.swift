import ArgumentParser
import Foundation
import CairnDatabaseCore
import CairnLocalStore
import SegmentLog

/// `cairn dump DIR`: the cache's records in log order, decoded, from ``CacheInspector/forEachRecord(matching:_:)``.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print a cache's records in log order, decoded (documents as JSON).",
        discussion: """
            Each line: LSN, location (segment:frameOffset#index), event, key, live or retired (superseded by a \
            newer event; compaction drops it), and the event's contents as JSON.
            With --json each line is one JSON object: lsn, segment, frameOffset, index, size, kind, event, key, \
            retired, value, and problem when the record cannot be decoded (unknown kinds read "unknown kind N, \
            M bytes").

            Firestore types are marked in the JSON: integers have no decimal point (42), doubles always have \
            one (42.0, 1.0e-07); {"__double__": "NaN"} (or "Infinity", "-Infinity"); \
            {"__timestamp__": "2024-01-01T00:00:00.000000000Z"} (UTC, nanoseconds); {"__bytes__": "base64"}; \
            {"__ref__": "projects/p/databases/d/documents/path"}; {"__geo__": [latitude, longitude]}; \
            {"__serverTimestamp__": {"localWriteTime": ..., "previous": ...}} for a pending server timestamp. \
            Map keys are sorted.
            For a Realtime Database cache: every value of the server data by path, then the pending writes \
            (--json: {"path":...,"value":...} and {"write":N,"op":"set"|"update","path":...,"value":...}); \
            --type, --key-prefix and --segment do not apply.
            Opens the directory read-only and changes nothing.

            Examples:
              cairn dump cache --type remoteDocumentChanged --key-prefix rooms/
              cairn dump cache --json --segment 2 | jq .value.fields
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @Option(name: .customLong("type"), help: ArgumentHelp(
        "Only records of this event (a name such as remoteDocumentChanged, or a kind number); repeat for several.",
        valueName: "event"))
    var types: [String] = []

    @Option(help: ArgumentHelp("Only records whose key starts with this text (a document path prefix, ...).", valueName: "prefix"))
    var keyPrefix: String?

    @Option(help: ArgumentHelp("Only records in this segment.", valueName: "id"))
    var segment: UInt32?

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws { _ = try kinds() }

    /// The kinds `--type` names.
    private func kinds() throws -> Set<UInt8>? {
        guard !types.isEmpty else { return nil }
        let byName = Dictionary(uniqueKeysWithValues: DecodedRecord.eventNames.map { ($0.value.lowercased(), $0.key) })
        return Set(try types.map { type in
            if let kind = UInt8(type) ?? byName[type.lowercased()] { return kind }
            throw ValidationError(
                "unknown --type '\(type)'; use a kind number or one of: "
                    + DecodedRecord.eventNames.keys.sorted().map { DecodedRecord.eventNames[$0]! }.joined(separator: ", "))
        })
    }

    func run() throws {
        if DatabaseCacheDetection.isDatabaseCache(at: directory) {
            guard types.isEmpty, keyPrefix == nil, segment == nil else {
                throw ValidationError("--type, --key-prefix and --segment select Firestore records; \(directory) is a Realtime Database cache")
            }
            let lines = try withDatabaseInspector(directory) { (inspector) throws(PersistenceError) in
                DatabaseCacheText.dump(server: try inspector.serverData(), writes: try inspector.pendingWrites(), json: json)
            }
            var output = BufferedOutput()
            for line in lines { output.write(line) }
            output.flush()
            return
        }
        let filter = RecordFilter(kinds: try kinds(), keyPrefix: keyPrefix.map { Array($0.utf8) }, segment: segment)
        var output = BufferedOutput()
        defer { output.flush() }
        try withInspector(directory) { inspector in
            try inspector.forEachRecord(matching: filter) { record in
                output.write(json ? Self.jsonLine(record) : Self.textLine(record))
            }
        }
    }

    static func textLine(_ record: DecodedRecord) -> String {
        let state = record.isRetired.map { $0 ? "retired" : "live" } ?? "?"
        let contents = record.problem ?? record.body.render()
        return "\(record.lsn)  \(record.location)  \(record.event)  \(record.key)  \(state)  \(contents)"
    }

    static func jsonLine(_ record: DecodedRecord) -> String { record.json.render() }
}

/// Lines to stdout through a 64 KiB buffer.
struct BufferedOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
