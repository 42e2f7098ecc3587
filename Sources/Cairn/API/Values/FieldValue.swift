import CairnModel

/// A sentinel for a field of `setData` / `updateData` that stands for an operation rather than a value.
///
/// ```swift
/// ref.updateData([
///     "visits": FieldValue.increment(Int64(1)),
///     "updated": FieldValue.serverTimestamp(),
///     "tags": FieldValue.arrayUnion(["swift"]),
///     "nickname": FieldValue.delete(),
/// ])
/// ```
///
/// Where each may appear follows Firebase: `delete()` only in `updateData` (as a top-level value) and in
/// `setData(_:merge:)` / `setData(_:mergeFields:)`; none inside arrays. Elements of `arrayUnion` / `arrayRemove`
/// must be Firestore values; an unsupported element is reported when the sentinel is written.
public final class FieldValue: Sendable, Hashable, CustomStringConvertible {
    let sentinel: Result<UserValue, FirestoreErrorCode>

    private init(_ sentinel: Result<UserValue, FirestoreErrorCode>) {
        self.sentinel = sentinel
    }

    /// Removes the field.
    public static func delete() -> FieldValue { FieldValue(.success(.delete)) }

    /// The server's commit time; locally, an estimate (see ``ServerTimestampBehavior``).
    public static func serverTimestamp() -> FieldValue { FieldValue(.success(.serverTimestamp)) }

    /// Adds `l` to the field (a missing or non-numeric field counts as 0).
    public static func increment(_ l: Int64) -> FieldValue { FieldValue(.success(.increment(.integer(l)))) }

    /// Adds `d` to the field (a missing or non-numeric field counts as 0).
    public static func increment(_ d: Double) -> FieldValue { FieldValue(.success(.increment(.double(d)))) }

    /// Appends each element the array field lacks (making the field an array if it is not one).
    public static func arrayUnion(_ elements: [Any]) -> FieldValue {
        FieldValue(arguments(elements).map { .arrayUnion($0) })
    }

    /// Removes every element equal to one of `elements` from the array field.
    public static func arrayRemove(_ elements: [Any]) -> FieldValue {
        FieldValue(arguments(elements).map { .arrayRemove($0) })
    }

    private static func arguments(_ elements: [Any]) -> Result<[UserValue], FirestoreErrorCode> {
        do throws(FirestoreErrorCode) {
            return .success(try elements.map { element throws(FirestoreErrorCode) in
                try UserDataReader.userValue(element, path: nil, depth: 1)
            })
        } catch {
            return .failure(error)
        }
    }

    /// Two sentinels are equal when they stand for the same operation with the same operands, as Firebase's are
    /// (`FieldValue.serverTimestamp() == FieldValue.serverTimestamp()`, also as values of an `NSDictionary`).
    public static func == (lhs: FieldValue, rhs: FieldValue) -> Bool { lhs.sentinel == rhs.sentinel }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    public var description: String {
        switch sentinel {
        case .success(let value): value.sentinelDescription
        case .failure(let error): "<invalid FieldValue: \(error.message)>"
        }
    }
}

extension UserValue {
    /// Firebase's name of a sentinel, such as `FieldValue.delete()`.
    var sentinelDescription: String {
        switch self {
        case .delete: "FieldValue.delete()"
        case .serverTimestamp: "FieldValue.serverTimestamp()"
        case .increment: "FieldValue.increment()"
        case .arrayUnion: "FieldValue.arrayUnion()"
        case .arrayRemove: "FieldValue.arrayRemove()"
        case .value, .map, .array, .vector: "value"
        }
    }
}
