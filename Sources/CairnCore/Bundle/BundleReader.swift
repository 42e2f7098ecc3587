import CairnLocalStore
import CairnModel
import Foundation

/// Reads a data bundle from a stream, one element at a time (Firebase's `BundleReader`), so a large bundle is
/// never held whole in memory and progress can be reported per document.
///
/// Format: a sequence of elements, each the decimal byte length of a JSON object followed by the object itself:
///
/// ```
/// bundle   = element*
/// element  = length json          ; length: ASCII digits, the UTF-8 byte count of json
/// json     = {"metadata": {id, createTime, version, totalDocuments, totalBytes}}       ; first element
///          | {"namedQuery": {name, readTime, bundledQuery: {parent, structuredQuery, limitType?}}}
///          | {"documentMetadata": {name, readTime, exists, queries?}}
///          | {"document": {name, createTime, updateTime, fields}}                         ; after its metadata
/// ```
///
/// Documents use the Firestore REST encoding (`{"stringValue": "a"}`, `{"integerValue": "1"}`, …); times are
/// RFC 3339 strings or `{seconds, nanos}` objects. `totalBytes` counts the bytes after the metadata element,
/// as ``bytesRead`` does.
///
/// ```swift
/// let reader = BundleReader(InputStream(data: data), databaseID: DatabaseID(projectID: "p"))
/// let metadata = try reader.readMetadata()
/// while let element = try reader.nextElement() { ... }
/// ```
package final class BundleReader {
    /// A length prefix longer than this is not a length (Firebase's limit: 16 digits would be petabytes).
    static let maxPrefixDigits = 16
    /// The bytes read from the stream at a time; an element's bytes are read as they arrive, so a damaged
    /// length never allocates more than the stream holds.
    static let chunkSize = 4096

    private let stream: InputStream
    private let decoder: BundleJSONDecoder
    private var buffer: [UInt8] = []
    private var position = 0
    private var streamEnded = false
    /// The byte offset in the bundle of `buffer[0]` (for error messages).
    private var bufferOffset = 0
    private var metadata: BundleMetadata?
    /// The bytes of the elements read after the metadata (Firebase's `bytes_read`).
    package private(set) var bytesRead = 0

    /// Reads from `stream`, opening it if it is not open yet; the reader closes it when done.
    package init(_ stream: InputStream, databaseID: DatabaseID) {
        self.stream = stream
        self.decoder = BundleJSONDecoder(databaseID: databaseID)
        if stream.streamStatus == .notOpen { stream.open() }
    }

    deinit { stream.close() }

    /// The bundle's metadata: its first element.
    package func readMetadata() throws(FirestoreErrorCode) -> BundleMetadata {
        if let metadata { return metadata }
        guard case .metadata(let metadata)? = try readElement() else {
            throw LoadedBundle.malformed("the first element must be the bundle's metadata")
        }
        self.metadata = metadata
        return metadata
    }

    /// The next element after the metadata, or nil at the end of the bundle.
    package func nextElement() throws(FirestoreErrorCode) -> BundleElement? {
        _ = try readMetadata()
        guard let element = try readElement(counting: true) else { return nil }
        if case .metadata = element { throw LoadedBundle.malformed("the bundle has a second metadata element") }
        return element
    }

    /// Reads one length-prefixed element, adding its bytes to ``bytesRead`` when `counting`; nil when the stream
    /// ends before its first byte.
    private func readElement(counting: Bool = false) throws(FirestoreErrorCode) -> BundleElement? {
        let elementOffset = bufferOffset + position
        var length = 0
        var digits = 0
        while true {
            guard let byte = try peekByte() else {
                if digits == 0 { return nil }
                throw LoadedBundle.malformed("the bundle ends inside the length prefix at byte \(elementOffset)")
            }
            if byte == UInt8(ascii: "{") { break }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < Self.maxPrefixDigits else {
                throw LoadedBundle.malformed("the length prefix at byte \(elementOffset) is not a number")
            }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        guard digits > 0 else { throw LoadedBundle.malformed("the element at byte \(elementOffset) has no length prefix") }
        while buffer.count - position < length {
            guard try fill() else {
                throw LoadedBundle.malformed(
                    "the element at byte \(elementOffset) is shorter than its length prefix \(length)")
            }
        }
        let json = Data(buffer[position..<position + length])
        position += length
        if counting { bytesRead += digits + length }
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw LoadedBundle.malformed("the element at byte \(elementOffset) is not a JSON object")
        }
        return try BundleElement(json: object, decoder: decoder)
    }

    /// The next unread byte, reading more of the stream when needed; nil at its end.
    private func peekByte() throws(FirestoreErrorCode) -> UInt8? {
        if position == buffer.count, !(try fill()) { return nil }
        return buffer[position]
    }

    /// Reads up to ``chunkSize`` more bytes; false at the end of the stream.
    private func fill() throws(FirestoreErrorCode) -> Bool {
        if streamEnded { return false }
        // Dropping the consumed bytes only once they are half the buffer keeps a long element's reads linear.
        if position > 0, position >= buffer.count / 2 {
            bufferOffset += position
            buffer.removeFirst(position)
            position = 0
        }
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        let count = chunk.withUnsafeMutableBufferPointer { stream.read($0.baseAddress!, maxLength: $0.count) }
        if count < 0 {
            let reason = stream.streamError.map { "\($0.localizedDescription)" } ?? "the stream reported an error"
            throw FirestoreErrorCode(.unknown, "Reading the bundle failed: \(reason)")
        }
        if count == 0 {
            streamEnded = true
            return false
        }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
