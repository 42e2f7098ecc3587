import CairnCore

/// The state of a bundle load. `error` and `success` are final: no update follows them.
public enum LoadBundleTaskState: Int, Sendable {
    case error
    case inProgress
    case success
}

/// A progress update, or the final state, of loading a bundle (``LoadBundleTask``).
///
/// ```swift
/// task.addObserver { progress in
///     print("\(progress.documentsLoaded) of \(progress.totalDocuments) documents, state \(progress.state)")
/// }
/// ```
public final class LoadBundleTaskProgress: Sendable, Hashable, CustomStringConvertible {
    /// How many documents have been loaded.
    public let documentsLoaded: Int
    /// The number of documents in the bundle; 0 if the bundle failed to parse.
    public let totalDocuments: Int
    /// How many bytes have been loaded.
    public let bytesLoaded: Int
    /// The number of bytes in the bundle (after its metadata); 0 if the bundle failed to parse.
    public let totalBytes: Int
    /// The current state of the task.
    public let state: LoadBundleTaskState

    init(_ progress: BundleLoadProgress) {
        documentsLoaded = progress.documentsLoaded
        totalDocuments = progress.totalDocuments
        bytesLoaded = progress.bytesLoaded
        totalBytes = progress.totalBytes
        switch progress.state {
        case .error: state = .error
        case .inProgress: state = .inProgress
        case .success: state = .success
        }
    }

    /// Progress updates are equal when every count and the state are (as Firebase's `isEqual:`).
    public static func == (a: LoadBundleTaskProgress, b: LoadBundleTaskProgress) -> Bool {
        a.documentsLoaded == b.documentsLoaded && a.totalDocuments == b.totalDocuments && a.bytesLoaded == b.bytesLoaded
            && a.totalBytes == b.totalBytes && a.state == b.state
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(documentsLoaded)
        hasher.combine(totalDocuments)
        hasher.combine(bytesLoaded)
        hasher.combine(totalBytes)
        hasher.combine(state)
    }

    public var description: String {
        "<LoadBundleTaskProgress: documents \(documentsLoaded)/\(totalDocuments), bytes \(bytesLoaded)/\(totalBytes), \(state)>"
    }
}
