import CairnCore

/// Where a one-time read gets its answer.
///
/// ```swift
/// let cached = try await ref.getDocument(source: .cache)
/// ```
public enum FirestoreSource: Int, Sendable, Hashable {
    /// The server when online (waiting for it), the cache when offline.
    case `default`
    /// The server only: fails with `unavailable` when the result can only come from the cache.
    case server
    /// The cache only: never touches the network.
    case cache
}

/// The options of `addSnapshotListener(options:listener:)`, built like Firebase's: each `with` returns a new
/// value.
///
/// ```swift
/// let options = SnapshotListenOptions().withIncludeMetadataChanges(true).withSource(.cache)
/// db.collection("cities").addSnapshotListener(options: options) { snapshot, error in ... }
/// ```
public final class SnapshotListenOptions: Sendable, Hashable {
    /// Raise snapshots whose only change is metadata (default `false`).
    public let includeMetadataChanges: Bool
    /// Where the listener gets its data (default `.default`).
    public let source: ListenSource

    public convenience init() {
        self.init(includeMetadataChanges: false, source: .default)
    }

    private init(includeMetadataChanges: Bool, source: ListenSource) {
        self.includeMetadataChanges = includeMetadataChanges
        self.source = source
    }

    /// These options with `includeMetadataChanges`.
    public func withIncludeMetadataChanges(_ includeMetadataChanges: Bool) -> SnapshotListenOptions {
        SnapshotListenOptions(includeMetadataChanges: includeMetadataChanges, source: source)
    }

    /// These options with `source`.
    public func withSource(_ source: ListenSource) -> SnapshotListenOptions {
        SnapshotListenOptions(includeMetadataChanges: includeMetadataChanges, source: source)
    }

    public static func == (a: SnapshotListenOptions, b: SnapshotListenOptions) -> Bool {
        a.includeMetadataChanges == b.includeMetadataChanges && a.source == b.source
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(includeMetadataChanges)
        hasher.combine(source)
    }

    var clientOptions: ListenOptions {
        .includingMetadataChanges(includeMetadataChanges, source: source)
    }
}
