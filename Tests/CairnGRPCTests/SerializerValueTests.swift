import CairnCore
import Cairn
import CairnModel
import Foundation
import SwiftProtobuf
import Testing

@testable import CairnGRPC

@Suite("Serializer: values and documents")
struct SerializerValueTests {
    let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "p"))

    /// Encodes to wire bytes and back, so the .proto definitions take part in the round trip.
    func throughWire(_ value: Value) throws -> Value {
        let bytes: Data = try serializer.encode(value).serializedData()
        return try serializer.decode(Google_Firestore_V1_Value(serializedBytes: bytes))
    }

    @Test("every value kind survives encode → bytes → decode (seeded)")
    func randomValuesRoundTrip() throws {
        var model = RandomModel(seed: 0x5EED_0001)
        for _ in 0..<500 {
            let value = model.value()
            #expect(try throughWire(value) == value, "\(value)")
        }
    }

    @Test("doubles keep -0.0 and NaN; integers stay int64 at both extremes")
    func numberEdges() throws {
        let negativeZero = try throughWire(.double(-0.0))
        guard case .double(let zero) = negativeZero else {
            Issue.record("not a double: \(negativeZero)")
            return
        }
        #expect(zero.sign == .minus)
        guard case .double(let nan) = try throughWire(.double(.nan)) else {
            Issue.record("NaN lost")
            return
        }
        #expect(nan.isNaN)
        #expect(try throughWire(.integer(.min)) == .integer(.min))
        #expect(try serializer.encode(.integer(.max)).integerValue == .max)
    }

    @Test("value kinds use the public API's field numbers on the wire")
    func wireFieldNumbers() throws {
        let cases: [(Value, Int)] = [
            (.null, 11), (.boolean(true), 1), (.integer(7), 2), (.double(1.5), 3),
            (.timestamp(Timestamp(seconds: 1, nanoseconds: 2)), 10), (.string("s"), 17), (.bytes([1]), 18),
            (.reference(DatabaseID(projectID: "p"), try DocumentKey(parsing: "a/b")), 5),
            (.geoPoint(GeoPoint(latitude: 1, longitude: 2)), 8), (.array([]), 9), (.map(ObjectValue()), 6),
        ]
        for (value, number) in cases {
            let bytes = [UInt8](try serializer.encode(value).serializedData())
            #expect(WireTags.fieldNumbers(bytes) == [number], "\(value)")
        }
    }

    @Test("references carry the full resource name, including another database's")
    func references() throws {
        let key = try DocumentKey(parsing: "rooms/a/messages/m1")
        let other = DatabaseID(projectID: "q", databaseID: "db2")
        #expect(
            try serializer.encode(.reference(other, key)).referenceValue
                == "projects/q/databases/db2/documents/rooms/a/messages/m1")
        #expect(serializer.name(for: key) == "projects/p/databases/(default)/documents/rooms/a/messages/m1")
        #expect(try serializer.decodeKey(serializer.name(for: key)) == key)
    }

    @Test("a pending server timestamp cannot be encoded; the error says to use a transform")
    func serverTimestampPlaceholder() {
        let placeholder = Value.serverTimestamp(localWriteTime: Timestamp(seconds: 1, nanoseconds: 0), previous: nil)
        expectFirestoreError(.invalidArgument, containing: "REQUEST_TIME") {
            try serializer.encode(.map(ObjectValue(["t": placeholder])))
        }
    }

    @Test("malformed server data is a dataLoss error, never a crash")
    func malformedInput() {
        let badNames = [
            "", "projects/p", "projects/p/databases/(default)/documents/rooms",
            "projects/p/databases/(default)/documents/rooms//x", "projects/p/databases/(default)/docs/a/b",
            "projects/other/databases/(default)/documents/a/b",
        ]
        for name in badNames {
            expectFirestoreError(.dataLoss, "\(name)") { try serializer.decodeKey(name) }
        }
        var badTime = Google_Firestore_V1_Value()
        badTime.timestampValue = Google_Protobuf_Timestamp(seconds: 0, nanos: 1_000_000_000)
        var empty = Google_Firestore_V1_Value()
        empty.valueType = nil
        var badReference = Google_Firestore_V1_Value()
        badReference.referenceValue = "projects/p/databases/(default)/documents/only-a-collection"
        for proto in [badTime, empty, badReference] {
            expectFirestoreError(.dataLoss, "\(proto)") { try serializer.decode(proto) }
        }
    }

    @Test("documents keep name, fields and update time; BatchGet's missing becomes noDocument at the read time")
    func documents() throws {
        var model = RandomModel(seed: 0x5EED_0002)
        for _ in 0..<100 {
            let key = model.key()
            let data = model.object()
            let version = model.timestamp()
            let readTime = model.timestamp()
            let proto = try serializer.encodeDocument(key: key, data: data, updateTime: version)
            let decoded = try serializer.decodeFoundDocument(
                Google_Firestore_V1_Document(serializedBytes: try proto.serializedData()), readTime: readTime)
            #expect(decoded.key == key)
            #expect(decoded.state == .found)
            #expect(decoded.version == version)
            #expect(decoded.readTime == readTime)
            #expect(decoded.data == data)
        }
        var missing = Google_Firestore_V1_BatchGetDocumentsResponse()
        missing.missing = "projects/p/databases/(default)/documents/a/b"
        missing.readTime = Google_Protobuf_Timestamp(seconds: 9, nanos: 8)
        let gone = try serializer.decodeBatchGetResponse(missing)
        #expect(gone.state == .noDocument)
        #expect(gone.version == Timestamp(seconds: 9, nanoseconds: 8))
        #expect(gone.key == (try DocumentKey(parsing: "a/b")))
    }
}

/// Reads the field numbers of a message's top-level fields from its wire bytes.
enum WireTags {
    static func fieldNumbers(_ bytes: [UInt8]) -> [Int] {
        var numbers: [Int] = []
        var index = 0
        func varint() -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            return result
        }
        while index < bytes.count {
            let tag = varint()
            numbers.append(Int(tag >> 3))
            switch tag & 7 {
            case 0: _ = varint()
            case 1: index += 8
            case 2: index += Int(varint())
            case 5: index += 4
            default: return numbers + [-1]
            }
        }
        return numbers
    }
}
