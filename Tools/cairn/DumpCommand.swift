import ArgumentParser
import Foundation
import SegmentLog

/// `cairn dump DIR`: every record (or those a filter selects) in log order, one per line, as text or JSON
/// Lines. Built on ``SegmentLog/scan(matching:_:)``. Never changes a byte.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print a segment log's records in log order.",
        discussion: """
            Each line: LSN, location (segment:frameOffset#index), kind, key (UTF-8 when valid, else hex), value size \
            and the value's first bytes (UTF-8 when printable, else hex).
            With --json each line is one JSON object with the fields lsn, segment, frameOffset, index, size, kind, \
            key, keyEncoding ("utf8" or "hex"), valueSize, valuePrefix, valuePrefixEncoding.
            Exit status: 0 success, 1 corruption found, 2 not a log, a missing segment or an I/O error.
            """)

    @Argument(help: "The log directory.")
    var directory: String

    @Option(name: .customLong("kind"), help: "Only records of this kind (repeat for several).")
    var kinds: [UInt8] = []

    @Option(help: "Only records whose key starts with this UTF-8 text.")
    var keyPrefix: String?

    @Option(help: "Only records in this segment.")
    var segment: UInt32?

    @Option(help: "How many bytes of each value to show.")
    var valueBytes: Int = 32

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        guard valueBytes >= 0 else { throw ValidationError("--value-bytes must not be negative") }
    }

    func run() throws {
        let log = try reportingStorageErrors { try openReadOnly(directory) }
        defer { try? log.close() }
        let filter = RecordFilter(
            kinds: kinds.isEmpty ? nil : Set(kinds), keyPrefix: keyPrefix.map { Array($0.utf8) }, segment: segment)
        let output = FileHandle.standardOutput
        var buffer: [UInt8] = []
        try reportingStorageErrors {
            try log.scan(matching: filter) { view in
                buffer.append(contentsOf: (json ? try jsonLine(view) : textLine(view)).utf8)
                buffer.append(0x0A)
                if buffer.count >= 1 << 16 {
                    output.write(Data(buffer))
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        }
        output.write(Data(buffer))
    }

    private func textLine(_ view: RecordView) -> String {
        let key = describeBytes(view.key)
        let value = describePrefix(view.value, limit: valueBytes)
        let more = view.value.count > valueBytes ? "..." : ""
        return "\(view.lsn)  \(view.location)  kind \(view.kind)  \(key.encoding == "hex" ? "hex:" : "")\(key.text)  "
            + "\(view.value.count) B  \(value.encoding == "hex" ? "hex:" : "")\(value.text)\(more)"
    }

    private func jsonLine(_ view: RecordView) throws -> String {
        let key = describeBytes(view.key)
        let value = describePrefix(view.value, limit: valueBytes)
        let object: [String: Any] = [
            "lsn": view.lsn, "segment": view.location.segment, "frameOffset": view.location.frameOffset,
            "index": view.location.index, "size": view.location.size, "kind": view.kind,
            "key": key.text, "keyEncoding": key.encoding,
            "valueSize": view.value.count, "valuePrefix": value.text, "valuePrefixEncoding": value.encoding,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
