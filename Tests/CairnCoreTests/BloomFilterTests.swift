import CairnCoreTestSupport
import CairnModel
import Foundation
import Testing

@testable import CairnCore

@Suite("BloomFilter")
struct BloomFilterTests {
    static let database = DatabaseID(projectID: "test-project")

    static func name(_ path: String) throws -> String {
        BloomFilter.memberName(of: try DocumentKey(parsing: path), in: database)
    }

    static func filter(_ base64: String, padding: Int, hashCount: Int) throws -> BloomFilter {
        try BloomFilter(BloomFilterParameters(
            bitmap: Array(try #require(Data(base64Encoded: base64))), padding: padding, hashCount: hashCount))
    }

    @Test("membership agrees with the filters the Firestore backend built for the spec tests")
    func membershipOfServerFilters() throws {
        let ab = try Self.filter("AhAAApAAAIAEBIAABA==", padding: 4, hashCount: 10)
        #expect(ab.bitCount == 13 * 8 - 4)
        #expect(ab.mightContain(try Self.name("collection/a")))
        #expect(!ab.mightContain(try Self.name("collection/b")))
        let falsePositive = try Self.filter("AxBIApBIAIAWBoCQBA==", padding: 4, hashCount: 10)
        #expect(falsePositive.mightContain(try Self.name("collection/a")))
        #expect(falsePositive.mightContain(try Self.name("collection/b")))
        let small = try Self.filter("CQ==", padding: 3, hashCount: 2)
        #expect(small.mightContain(try Self.name("collection/b")))
        #expect(!small.mightContain(try Self.name("collection/a")))
        let single = try Self.filter("CA==", padding: 4, hashCount: 1)
        #expect(single.mightContain(try Self.name("collection/b")))
        #expect(!single.mightContain(try Self.name("collection/c")))
    }

    @Test("an empty filter contains nothing")
    func emptyFilter() throws {
        let empty = try BloomFilter(BloomFilterParameters(bitmap: [], padding: 0, hashCount: 0))
        #expect(empty.bitCount == 0)
        #expect(!empty.mightContain(try Self.name("collection/a")))
    }

    @Test("invalid parameters are rejected with invalidArgument", arguments: [
        BloomFilterParameters(bitmap: [1], padding: 8, hashCount: 1),
        BloomFilterParameters(bitmap: [1], padding: -1, hashCount: 1),
        BloomFilterParameters(bitmap: [1], padding: 0, hashCount: -1),
        BloomFilterParameters(bitmap: [1], padding: 0, hashCount: 0),
        BloomFilterParameters(bitmap: [], padding: 1, hashCount: 0),
    ])
    func invalidParameters(_ parameters: BloomFilterParameters) {
        #expect { try BloomFilter(parameters) } throws: { ($0 as? FirestoreErrorCode)?.code == .invalidArgument }
    }

    @Test("a filter holding every bit contains anything; MD5 halves are read little-endian")
    func allBitsAndIndexing() throws {
        let full = try BloomFilter(BloomFilterParameters(bitmap: [0xff, 0xff], padding: 0, hashCount: 3))
        #expect(full.mightContain("anything"))
        // One bit set: membership must equal "h1 mod bitCount == that bit" for hashCount 1.
        let digest: [UInt8] = [0x9d, 0xd4, 0xe4, 0x61, 0x26, 0x8c, 0x80, 0x34]   // MD5("x") begins 9dd4e461268c8034
        let h1 = (0..<8).reduce(UInt64(0)) { $0 | UInt64(digest[$1]) << (8 * UInt64($1)) }
        let bit = Int(h1 % 16)
        var bitmap: [UInt8] = [0, 0]
        bitmap[bit / 8] = 1 << (bit % 8)
        let one = try BloomFilter(BloomFilterParameters(bitmap: bitmap, padding: 0, hashCount: 1))
        #expect(one.mightContain("x"))
        bitmap[bit / 8] = 0
        bitmap[((bit + 1) % 16) / 8] = 1 << (((bit + 1) % 16) % 8)
        #expect(!(try BloomFilter(BloomFilterParameters(bitmap: bitmap, padding: 0, hashCount: 1))).mightContain("x"))
    }
}
