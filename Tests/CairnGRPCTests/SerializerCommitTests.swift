import CairnCore
import Cairn
import CairnModel
import Foundation
import SwiftProtobuf
import Testing

@testable import CairnGRPC

/// Commit answers through the serializer: the commit time becomes the commit version and the version of every
/// write result without an update time; an answer without a commit time (what the emulator sends when a commit
/// has no writes) is accepted with the zero version, as Firebase does.
@Suite("Serializer: commit answers")
struct SerializerCommitTests {
    let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "p"))

    static func protoTime(_ seconds: Int64, _ nanos: Int32 = 0) -> Google_Protobuf_Timestamp {
        Google_Protobuf_Timestamp.with {
            $0.seconds = seconds
            $0.nanos = nanos
        }
    }

    /// `response` serialized and parsed again, so the test sees what arrives on the wire.
    static func throughWire<M: SwiftProtobuf.Message>(_ response: M) throws -> M {
        try M(serializedBytes: try response.serializedData())
    }

    @Test("a commit time becomes the commit version and the version of results without an update time")
    func commitTime() throws {
        let response = try Self.throughWire(Google_Firestore_V1_CommitResponse.with {
            $0.commitTime = Self.protoTime(20, 5000)
            $0.writeResults = [
                Google_Firestore_V1_WriteResult.with { $0.updateTime = Self.protoTime(20, 5000) },
                Google_Firestore_V1_WriteResult(),  // a delete
            ]
        })
        let ack = try serializer.decodeCommitResponse(response, writeCount: 2)
        let time = Timestamp(seconds: 20, nanoseconds: 5000)
        #expect(ack.commitVersion == time)
        #expect(ack.results.map(\.version) == [time, time])
    }

    @Test("an empty commit answered without commit_time is acknowledged at the zero version")
    func emptyCommitWithoutCommitTime() throws {
        let response = try Self.throughWire(Google_Firestore_V1_CommitResponse())
        #expect(!response.hasCommitTime)
        let ack = try serializer.decodeCommitResponse(response, writeCount: 0)
        #expect(ack.commitVersion == FirestoreSerializer.noCommitVersion)
        #expect(ack.commitVersion == Timestamp(seconds: 0, nanoseconds: 0))
        #expect(ack.results.isEmpty)
    }

    @Test("a commit of preconditions only, answered without commit_time, keeps the results' update times")
    func verifyOnlyWithoutCommitTime() throws {
        let response = try Self.throughWire(Google_Firestore_V1_CommitResponse.with {
            $0.writeResults = [
                Google_Firestore_V1_WriteResult.with { $0.updateTime = Self.protoTime(7, 1000) },
                Google_Firestore_V1_WriteResult(),
            ]
        })
        let ack = try serializer.decodeCommitResponse(response, writeCount: 2)
        #expect(ack.commitVersion == FirestoreSerializer.noCommitVersion)
        #expect(ack.results.map(\.version) == [Timestamp(seconds: 7, nanoseconds: 1000), FirestoreSerializer.noCommitVersion])
    }

    @Test("a Write stream response without commit_time is accepted the same way")
    func writeResponseWithoutCommitTime() throws {
        let response = try Self.throughWire(Google_Firestore_V1_WriteResponse.with {
            $0.streamToken = Data([1, 2])
            $0.writeResults = [Google_Firestore_V1_WriteResult()]
        })
        let ack = try serializer.decodeWriteResponse(response, writeCount: 1)
        #expect(ack.commitVersion == FirestoreSerializer.noCommitVersion)
        #expect(ack.results.count == 1)
    }

    @Test("results that do not match the writes sent are malformed (dataLoss), commit time or not")
    func resultCountMismatch() throws {
        for hasTime in [true, false] {
            let response = Google_Firestore_V1_CommitResponse.with {
                if hasTime { $0.commitTime = Self.protoTime(1) }
                $0.writeResults = [Google_Firestore_V1_WriteResult()]
            }
            #expect {
                _ = try serializer.decodeCommitResponse(response, writeCount: 2)
            } throws: { error in
                (error as? FirestoreErrorCode)?.code == .dataLoss && "\(error)".contains("2 writes were acknowledged with 1 results")
            }
        }
    }
}
