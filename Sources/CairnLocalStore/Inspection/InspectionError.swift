import SegmentLog

/// Why a ``CacheInspector`` (or an offline maintenance run) could not do its work: a code that says what to
/// do about it (and which exit status `cairn` returns), and a message a person can act on.
///
/// ```swift
/// do {
///     let inspector = try CacheInspector.open(at: path)
/// } catch let error as InspectionError where error.code == .locked {
///     print(error.message)   // "... is in use by pid 4242; close that app first, ..."
/// }
/// ```
package struct InspectionError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The directory holds no Cairn cache (no MANIFEST, or records that are not cache events).
        case notACache
        /// A running app holds the directory's lock.
        case locked
        /// Stored bytes are damaged (a frame, the manifest, or an event that cannot be decoded).
        case corruption
        /// A newer version of Cairn wrote the cache.
        case newerFormat
        /// Reading or writing a file failed.
        case io
        /// The caller asked for something that does not exist or cannot be done (a missing segment, ...).
        case invalidArgument
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }

    /// The inspection error for a storage or cache error met while working on `directory`.
    static func wrap(_ error: any Error, directory: String) -> InspectionError {
        if let error = error as? InspectionError { return error }
        if let error = error as? LocalStoreError {
            if let storage = error.storage { return wrap(storage, directory: directory) }
            switch error.code {
            case .dataLoss: return InspectionError(.corruption, error.message)
            case .invalidArgument, .closed: return InspectionError(.invalidArgument, error.message)
            case .storage: return InspectionError(.io, error.message)
            }
        }
        guard let storage = error as? StorageError else { return InspectionError(.io, "\(error)") }
        let place = storage.path.map { " [\($0)" + (storage.offset.map { " @\($0)" } ?? "") + "]" } ?? ""
        switch storage.code {
        case .notALog:
            return InspectionError(.notACache, "\(directory) is not a Cairn cache: \(storage.message)")
        case .locked:
            return InspectionError(.locked, "\(directory): \(storage.message)")
        case .corruption:
            return InspectionError(
                .corruption, "\(storage.message)\(place); run `cairn verify \(directory)` for a full report, and "
                    + "`cairn salvage \(directory) --output NEW` to copy every intact record into a new directory")
        case .formatVersion:
            return InspectionError(.newerFormat, "\(storage.message)\(place); use the Cairn version that wrote it")
        case .notFound, .invalidArgument, .closed:
            return InspectionError(.invalidArgument, "\(storage.message)\(place)")
        default:
            return InspectionError(.io, "\(storage.message)\(place)" + (storage.errno.map { " (errno \($0))" } ?? ""))
        }
    }
}
