import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API values: Timestamp, GeoPoint, FieldPath, FieldValue, listen options")
struct APIValueTests {
    @Test("Timestamp(date:) truncates the Date's fraction to nanoseconds as Firebase does; dateValue() returns the instant")
    func timestampFromDate() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        let timestamp = Cairn.Timestamp(date: date)
        #expect(timestamp.seconds == 1_700_000_000)
        #expect(timestamp.nanoseconds == 123_456_001, "the Double's fraction, truncated, not rounded to microseconds")
        let millis = Cairn.Timestamp(date: Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(millis.seconds == 1_700_000_000 && millis.nanoseconds == 122_999_906)
        #expect(abs(timestamp.dateValue().timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-6)
        let beforeEpoch = Cairn.Timestamp(date: Date(timeIntervalSince1970: -1.5))
        #expect(beforeEpoch.seconds == -2 && beforeEpoch.nanoseconds == 500_000_000)
    }

    @Test("Timestamps order by seconds then nanoseconds, and compare(_:) agrees")
    func timestampOrder() {
        let a = Cairn.Timestamp(seconds: 10, nanoseconds: 999)
        let b = Cairn.Timestamp(seconds: 11, nanoseconds: 0)
        #expect(a < b)
        #expect(a.compare(b) == .orderedAscending)
        #expect(b.compare(a) == .orderedDescending)
        #expect(a == Cairn.Timestamp(seconds: 10, nanoseconds: 999))
        #expect(a.compare(Cairn.Timestamp(seconds: 10, nanoseconds: 999)) == .orderedSame)
    }

    @Test("Out-of-range timestamps and geopoints are reported when written, with the reason and the field")
    func rangesAreCheckedOnWrite() async throws {
        let env = APITestEnvironment()
        let ref = env.db.document("c/d")
        await #expect(throws: FirestoreErrorCode.self) {
            try await ref.setData(["t": Cairn.Timestamp(seconds: 0, nanoseconds: 1_000_000_000)])
        }
        do {
            try await ref.setData(["where": ["at": Cairn.GeoPoint(latitude: 91, longitude: 0)]])
            Issue.record("an out-of-range latitude was accepted")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("Latitude must be a number between -90 and 90, but was: 91.0."))
            #expect(error.message.hasSuffix("(found in field where.at)"))
        }
        #expect(Cairn.GeoPoint(latitude: .nan, longitude: 0).validationProblem != nil)
        #expect(Cairn.GeoPoint(latitude: -90, longitude: 180).validationProblem == nil)
        #expect(try await env.writes().isEmpty)
    }

    @Test("FieldPath keeps dots inside names; an empty FieldPath is reported where it is used")
    func fieldPaths() throws {
        #expect(try Cairn.FieldPath(["a.b", "c"]).parsed.get().segments == ["a.b", "c"])
        #expect(Cairn.FieldPath.documentID() == Cairn.FieldPath(model: .documentKey))
        let env = APITestEnvironment()
        let query = env.db.collection("c").whereField(Cairn.FieldPath([]), isEqualTo: 1)
        guard case .failure(let error) = query.state else {
            Issue.record("an empty field path was accepted")
            return
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("Provided names must not be empty"))
    }

    @Test("FieldValue sentinels compare equal by operation and operands, also as values of an NSDictionary")
    func fieldValueEquality() {
        #expect(FieldValue.serverTimestamp() == FieldValue.serverTimestamp())
        #expect(FieldValue.delete() == FieldValue.delete())
        #expect(FieldValue.delete() != FieldValue.serverTimestamp())
        #expect(FieldValue.increment(Int64(2)) == FieldValue.increment(Int64(2)))
        #expect(FieldValue.increment(Int64(2)) != FieldValue.increment(Int64(3)))
        #expect(FieldValue.arrayUnion(["a", 1]) == FieldValue.arrayUnion(["a", 1]))
        #expect(FieldValue.arrayUnion(["a"]) != FieldValue.arrayRemove(["a"]))
        #expect(Set([FieldValue.serverTimestamp(), FieldValue.serverTimestamp()]).count == 1)
        let first = NSDictionary(dictionary: ["updated": FieldValue.serverTimestamp(), "n": 1])
        let second = NSDictionary(dictionary: ["updated": FieldValue.serverTimestamp(), "n": 1])
        let same: Bool = first.isEqual(to: second as! [AnyHashable: Any])
        let other: Bool = first.isEqual(to: ["updated": FieldValue.delete(), "n": 1])
        #expect(same)
        #expect(!other)
    }

    @Test("FieldValue sentinels carry their operation; bad arrayUnion elements are kept as the error")
    func fieldValues() {
        guard case .success(.increment(.integer(3))) = FieldValue.increment(Int64(3)).sentinel else {
            Issue.record("integer increment")
            return
        }
        guard case .success(.increment(.double(1.5))) = FieldValue.increment(1.5).sentinel else {
            Issue.record("double increment")
            return
        }
        guard case .success(.arrayRemove(let elements)) = FieldValue.arrayRemove(["a", 1]).sentinel else {
            Issue.record("arrayRemove")
            return
        }
        #expect(elements.count == 2)
        guard case .failure(let error) = FieldValue.arrayUnion([URL(fileURLWithPath: "/x")]).sentinel else {
            Issue.record("an unsupported element was accepted")
            return
        }
        #expect(error.message == "Unsupported type: URL")
    }

    @Test("SnapshotListenOptions builds like Firebase's and maps onto the client's listen options")
    func listenOptions() {
        let base = SnapshotListenOptions()
        #expect(!base.includeMetadataChanges && base.source == .default)
        let options = base.withIncludeMetadataChanges(true).withSource(.cache)
        #expect(options.includeMetadataChanges && options.source == .cache)
        #expect(base.source == .default)
        let client = options.clientOptions
        #expect(client.includeQueryMetadataChanges && client.includeDocumentMetadataChanges)
        #expect(client.source == .cache && !client.waitForSyncWhenOnline)
    }
}
