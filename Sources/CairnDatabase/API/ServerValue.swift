import Foundation

/// Placeholders the server replaces when it applies a write; Cairn resolves them locally for the optimistic events
/// (the timestamp with the server time offset from `.info/serverTimeOffset`, the increment on the local value).
///
/// ```swift
/// ref.child("lastSeen").setValue(ServerValue.timestamp())
/// ref.child("likes").setValue(ServerValue.increment(1))
/// ```
public final class ServerValue {
    private init() {}

    /// The server's time in milliseconds since 1970, when it applies the write.
    public static func timestamp() -> [AnyHashable: Any] { [".sv": "timestamp"] }

    /// The current number at the location plus `delta` (a missing or non-number value counts as 0).
    public static func increment(_ delta: NSNumber) -> [AnyHashable: Any] {
        let type = String(cString: delta.objCType)
        let value: Any = type == "f" || type == "d" ? delta.doubleValue : delta.int64Value
        return [".sv": ["increment": value]]
    }
}
