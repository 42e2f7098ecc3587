import CairnModel
import Foundation

/// How a snapshot shows a server timestamp that the server has not yet set (a local write not yet
/// acknowledged).
///
/// ```swift
/// snapshot.data(with: .estimate)?["updated"] as? Timestamp   // the local write time
/// snapshot.get("updated", serverTimestampBehavior: .previous) // the value before the write
/// ```
public enum ServerTimestampBehavior: Int, Sendable, Hashable {
    /// `NSNull` (the default).
    case none
    /// The local time of the write, as a ``Timestamp``.
    case estimate
    /// The field's value before the write (`NSNull` if it had none).
    case previous
}

/// Turns stored values back into the Swift and Foundation values of Firebase's API (Firebase's
/// `FSTUserDataWriter`): null → `NSNull`, booleans and numbers → `NSNumber` (so `as? Bool`, `as? Int` and
/// `as? Double` all work), strings → `String`, bytes → `Data`, timestamps → ``Timestamp``, geopoints →
/// ``GeoPoint``, references → ``DocumentReference``, arrays → `[Any]`, vectors (maps of Firestore's vector
/// shape) → ``VectorValue``, other maps → `[String: Any]`.
///
/// ```swift
/// let writer = UserDataWriter(firestore: db, serverTimestampBehavior: .estimate)
/// writer.convert(.map(ObjectValue(["n": .integer(1)])))   // ["n": 1]
/// ```
struct UserDataWriter {
    let firestore: Firestore
    let serverTimestampBehavior: ServerTimestampBehavior

    /// The fields of a document.
    func convert(_ object: ObjectValue) -> [String: Any] {
        object.fields.mapValues(convert)
    }

    func convert(_ value: Value) -> Any {
        switch value {
        case .null:
            return NSNull()
        case .boolean(let bool):
            return NSNumber(value: bool)
        case .integer(let int):
            return NSNumber(value: int)
        case .double(let double):
            return NSNumber(value: double)
        case .timestamp(let timestamp):
            return Timestamp(timestamp)
        case .serverTimestamp(let localWriteTime, let previous):
            switch serverTimestampBehavior {
            case .none: return NSNull()
            case .estimate: return Timestamp(localWriteTime)
            case .previous: return previous.map(convert) ?? NSNull()
            }
        case .string(let string):
            return string
        case .bytes(let bytes):
            return Data(bytes)
        case .reference(_, let key):
            return DocumentReference(firestore: firestore, key: key)
        case .geoPoint(let point):
            return GeoPoint(point)
        case .array(let elements):
            return elements.map(convert)
        case .map(let object):
            if let elements = object.vectorElements, let vector = VectorValue(elements: elements) { return vector }
            return convert(object)
        }
    }
}
