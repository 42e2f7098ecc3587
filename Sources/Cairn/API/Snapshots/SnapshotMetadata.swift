/// How fresh a snapshot is.
///
/// ```swift
/// ref.addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
///     guard let metadata = snapshot?.metadata else { return }
///     if metadata.hasPendingWrites { print("local change, not yet on the server") }
///     if metadata.isFromCache { print("offline or not yet synced") }
/// }
/// ```
public final class SnapshotMetadata: Sendable, Hashable, CustomStringConvertible {
    /// True when the snapshot holds local writes the server has not acknowledged yet.
    public let hasPendingWrites: Bool
    /// True when the snapshot comes from the cache and may not match the server (offline, or not yet in sync).
    public let isFromCache: Bool

    init(hasPendingWrites: Bool, isFromCache: Bool) {
        self.hasPendingWrites = hasPendingWrites
        self.isFromCache = isFromCache
    }

    public static func == (a: SnapshotMetadata, b: SnapshotMetadata) -> Bool {
        a.hasPendingWrites == b.hasPendingWrites && a.isFromCache == b.isFromCache
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hasPendingWrites)
        hasher.combine(isFromCache)
    }

    public var description: String {
        "<FIRSnapshotMetadata: hasPendingWrites=\(hasPendingWrites), isFromCache=\(isFromCache)>"
    }
}
