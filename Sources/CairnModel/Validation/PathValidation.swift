/// The server's constraints on collection IDs, document IDs and document names, checked before a write is
/// queued so that an offline write is rejected at once rather than hours later by the server.
///
/// Rules (Firebase "Usage and limits", https://firebase.google.com/docs/firestore/quotas, section "Collections,
/// documents, and fields"): an ID
/// - must be valid UTF-8 (always true of a Swift `String`),
/// - must be no longer than 1,500 bytes,
/// - cannot contain a forward slash,
/// - cannot solely consist of `.` or `..`,
/// - cannot match the regular expression `__.*__`, except that documents imported from Datastore expose their
///   numeric IDs as `__id[0-9]+__`, which stay addressable as document IDs;
///
/// and a document name is at most 6 KiB, with at most 100 levels of subcollections.
///
/// The Firebase client SDKs leave these checks to the server; Cairn does them locally because its writes can
/// sit in the outbox for a long time. Reads are not restricted: paths the server sends are never rejected.
///
/// ```swift
/// try PathValidation.validateDocumentID("ada")         // ok
/// try PathValidation.validateDocumentID("__meta__")    // throws: reserved
/// try PathValidation.validateCollectionID("..")        // throws: cannot be "." or ".."
/// try PathValidation.validate(DocumentKey(parsing: "users/ada").path)   // every segment, name size, depth
/// ```
package enum PathValidation {
    /// The longest collection or document ID, in UTF-8 bytes.
    package static let maxIDBytes = 1_500
    /// The longest document name, in UTF-8 bytes of the path (`users/ada/...`). The server's limit is on the
    /// full resource name, which is longer, so this never rejects a name the server would accept.
    package static let maxDocumentNameBytes = 6 * 1_024
    /// The deepest subcollection: a path may contain at most this many collection IDs.
    package static let maxCollectionDepth = 100

    /// Checks one document ID against the server's rules.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` saying which rule the ID breaks.
    package static func validateDocumentID(_ id: String) throws(ModelError) {
        if let reason = problem(withID: id, allowsNumericID: true) {
            throw ModelError.invalidArgument("Invalid document ID \(quoted(id)): \(reason)")
        }
    }

    /// Checks one collection ID against the server's rules.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` saying which rule the ID breaks.
    package static func validateCollectionID(_ id: String) throws(ModelError) {
        if let reason = problem(withID: id, allowsNumericID: false) {
            throw ModelError.invalidArgument("Invalid collection ID \(quoted(id)): \(reason)")
        }
    }

    /// Checks every segment of `path` (collection IDs at odd positions, document IDs at even ones), the
    /// document name size and the subcollection depth. The path may name a collection or a document.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` naming the path and the rule it breaks.
    package static func validate(_ path: ResourcePath) throws(ModelError) {
        for (index, segment) in path.segments.enumerated() {
            let isCollection = index % 2 == 0
            if let reason = problem(withID: segment, allowsNumericID: !isCollection) {
                let kind = isCollection ? "collection" : "document"
                throw ModelError.invalidArgument(
                    "Invalid \(kind) ID \(quoted(segment)) in path \(path.shortenedForMessage): \(reason)")
            }
        }
        let nameBytes = path.canonicalString.utf8.count
        if nameBytes > maxDocumentNameBytes {
            throw ModelError.invalidArgument(
                "Invalid path (\(path.shortenedForMessage)): the document name is \(nameBytes) bytes, more than "
                    + "the \(maxDocumentNameBytes)-byte (6 KiB) maximum. Use shorter IDs or a shallower path.")
        }
        let depth = (path.count + 1) / 2
        if depth > maxCollectionDepth {
            throw ModelError.invalidArgument(
                "Invalid path (\(path.shortenedForMessage)): it nests \(depth) collections, more than the "
                    + "maximum subcollection depth of \(maxCollectionDepth).")
        }
    }

    /// True when `name` matches Firestore's reserved pattern `__.*__`: at least four bytes that begin and end
    /// with two underscores. Used for IDs and for field names.
    static func matchesReservedPattern(_ name: String) -> Bool {
        let bytes = name.utf8
        return bytes.count >= 4 && bytes.starts(with: "__".utf8) && bytes.reversed().starts(with: "__".utf8)
    }

    /// Why `id` is not a valid collection or document ID, or `nil` when it is.
    private static func problem(withID id: String, allowsNumericID: Bool) -> String? {
        let bytes = id.utf8.count
        if bytes == 0 {
            return "IDs must not be empty."
        }
        if bytes > maxIDBytes {
            return "IDs must be no longer than 1,500 bytes, but this one has \(bytes)."
        }
        if id.utf8.contains(UInt8(ascii: "/")) {
            return "IDs cannot contain a forward slash (/); a slash separates collections and documents in a path."
        }
        if id.utf8.elementsEqual(".".utf8) || id.utf8.elementsEqual("..".utf8) {
            return "IDs cannot solely consist of a single period (.) or double periods (..)."
        }
        if matchesReservedPattern(id) && !(allowsNumericID && isDatastoreNumericID(id)) {
            return "IDs matching the regular expression __.*__ are reserved by Firestore; "
                + "choose an ID that does not both begin and end with \"__\"."
        }
        return nil
    }

    /// True for `__id[0-9]+__`, the form of numeric IDs of documents imported from Datastore.
    private static func isDatastoreNumericID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count > 6, bytes.starts(with: "__id".utf8) else { return false }
        return bytes[4..<(bytes.count - 2)].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// An ID in quotes for a message, cut to 64 characters so a 1,500-byte ID does not drown the message.
    static func quoted(_ id: String) -> String {
        id.count <= 64 ? "\"\(id)\"" : "\"\(id.prefix(64))…\""
    }
}

extension ResourcePath {
    /// The path for a message, cut to 200 characters.
    fileprivate var shortenedForMessage: String {
        let text = canonicalString
        return text.count <= 200 ? text : "\(text.prefix(200))…"
    }
}
