import CairnCore
import CairnModel
import Foundation
import SwiftProtobuf

/// Values: every CairnModel ``Value`` kind to `google.firestore.v1.Value` and back.
///
/// Integers are int64, doubles keep NaN and -0.0 bit for bit, timestamps keep nanoseconds, references are full
/// resource names (`projects/{p}/databases/{d}/documents/{path}`, possibly of another database), geo points are
/// `google.type.LatLng`. A local server-timestamp placeholder has no wire form: the server computes the value from
/// the write's field transform, so encoding one is a programming error reported as `invalidArgument`.
extension FirestoreSerializer {
    package func encode(_ value: Value) throws(FirestoreErrorCode) -> Google_Firestore_V1_Value {
        var proto = Google_Firestore_V1_Value()
        switch value {
        case .null: proto.nullValue = .nullValue
        case .boolean(let boolean): proto.booleanValue = boolean
        case .integer(let integer): proto.integerValue = integer
        case .double(let double): proto.doubleValue = double
        case .timestamp(let timestamp): proto.timestampValue = Self.encode(timestamp)
        case .string(let string): proto.stringValue = string
        case .bytes(let bytes): proto.bytesValue = Data(bytes)
        case .reference(let database, let key):
            proto.referenceValue = FirestoreSerializer(databaseID: database).name(for: key)
        case .geoPoint(let point):
            proto.geoPointValue = Google_Type_LatLng.with {
                $0.latitude = point.latitude
                $0.longitude = point.longitude
            }
        case .array(let elements):
            var array = Google_Firestore_V1_ArrayValue()
            array.values = try elements.map { (element) throws(FirestoreErrorCode) in try encode(element) }
            proto.arrayValue = array
        case .map(let object):
            var map = Google_Firestore_V1_MapValue()
            map.fields = try encodeFields(object)
            proto.mapValue = map
        case .serverTimestamp:
            throw FirestoreErrorCode(
                .invalidArgument,
                "A pending server timestamp cannot be sent as a value; send it as a REQUEST_TIME field transform "
                    + "(FieldValue.serverTimestamp() in a write) so the server fills it in.")
        }
        return proto
    }

    package func decode(_ proto: Google_Firestore_V1_Value) throws(FirestoreErrorCode) -> Value {
        switch proto.valueType {
        case .nullValue: return .null
        case .booleanValue(let boolean): return .boolean(boolean)
        case .integerValue(let integer): return .integer(integer)
        case .doubleValue(let double): return .double(double)
        case .timestampValue(let timestamp): return .timestamp(try Self.decode(timestamp))
        case .stringValue(let string): return .string(string)
        case .bytesValue(let bytes): return .bytes([UInt8](bytes))
        case .referenceValue(let name):
            let (database, path) = try Self.splitResourceName(name)
            guard path.isDocumentPath, !path.segments.contains(where: \.isEmpty) else {
                throw Self.malformed("the reference value \(name) does not name a document")
            }
            return .reference(database, DocumentKey(path: path))
        case .geoPointValue(let point):
            return .geoPoint(GeoPoint(latitude: point.latitude, longitude: point.longitude))
        case .arrayValue(let array):
            return .array(try array.values.map { (element) throws(FirestoreErrorCode) in try decode(element) })
        case .mapValue(let map):
            return .map(try decodeFields(map.fields))
        case nil:
            throw Self.malformed(
                "a value has no type this client knows (a newer server value kind, or an empty message)")
        }
    }

    /// The `fields` map of a document or map value.
    package func encodeFields(_ object: ObjectValue) throws(FirestoreErrorCode) -> [String: Google_Firestore_V1_Value] {
        var fields: [String: Google_Firestore_V1_Value] = [:]
        fields.reserveCapacity(object.fields.count)
        for (name, value) in object.fields {
            fields[name] = try encode(value)
        }
        return fields
    }

    package func decodeFields(_ fields: [String: Google_Firestore_V1_Value]) throws(FirestoreErrorCode) -> ObjectValue {
        var object: [String: Value] = [:]
        object.reserveCapacity(fields.count)
        for (name, value) in fields {
            object[name] = try decode(value)
        }
        return ObjectValue(object)
    }
}
