import CairnDatabase
import CairnDatabaseCore
import Foundation
import Testing

/// The snapshots a `value` observer saw, newest last.
private final class Snapshots: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [DataSnapshot] = []

    func add(_ snapshot: DataSnapshot) { lock.withLock { stored.append(snapshot) } }
    var last: DataSnapshot? { lock.withLock { stored.last } }
}

private struct Address: Codable, Equatable {
    var city: String
    var zip: String?
}

private enum Role: String, Codable, Equatable { case admin, member }

private enum Contact: Codable, Equatable {
    case email(String)
    case phone(country: Int, number: String)
}

private struct Profile: Codable, Equatable {
    var name: String
    var age: Int
    var score: Double
    var active: Bool
    var role: Role
    var nickname: String?
    var address: Address
    var contacts: [Contact]
    var tags: [String]
    var joined: Date
    var counts: [String: Int]
}

private struct Post: Codable, Equatable {
    var text: String
    @ServerTimestamp var at: Date?
}

private final class Chain: Codable {
    var next: Chain?
    init(next: Chain?) { self.next = next }
}

@Suite("Database Codable: setValue(from:), data(as:), @ServerTimestamp")
struct DatabaseCodableTests {
    private let profile = Profile(
        name: "Ada", age: 36, score: 9.5, active: true, role: .admin, nickname: nil,
        address: Address(city: "London", zip: "N1"),
        contacts: [.email("ada@example.com"), .phone(country: 44, number: "20 7946 0000")],
        tags: ["math", "engines"], joined: Date(timeIntervalSinceReferenceDate: 12_345.25), counts: ["posts": 3, "likes": 0])

    @Test("Nested structs, enums, optionals, arrays and dates read back equal after setValue(from:) and data(as:)")
    func roundTrip() throws {
        let (database, _) = makeDatabase()
        let snapshots = Snapshots()
        let ref = database.reference(withPath: "users/ada")
        ref.observe(.value) { snapshots.add($0) }
        try ref.setValue(from: profile)
        database.waitForCallbacks()
        let snapshot = try #require(snapshots.last)
        #expect(try snapshot.data(as: Profile.self) == profile)

        var withNickname = profile
        withNickname.nickname = "Countess"
        withNickname.address.zip = nil
        try ref.setValue(from: withNickname)
        database.waitForCallbacks()
        #expect(try snapshots.last?.data(as: Profile.self) == withNickname)
    }

    @Test("A dictionary with integer keys, which the database reads back as a list, decodes as a dictionary")
    func integerKeyedDictionary() throws {
        let (database, _) = makeDatabase()
        let snapshots = Snapshots()
        let ref = database.reference(withPath: "ranks")
        ref.observe(.value) { snapshots.add($0) }
        let ranks: [Int: String] = [0: "gold", 1: "silver", 3: "fourth"]
        try ref.setValue(from: ranks)
        database.waitForCallbacks()
        #expect(text(snapshots.last?.value) == #"["gold","silver",null,"fourth"]"#)
        #expect(try snapshots.last?.data(as: [Int: String].self) == ranks)
        #expect(try snapshots.last?.data(as: [String: String].self) == ["0": "gold", "1": "silver", "3": "fourth"])
    }

    @Test("A struct written with setValue(from:) is seen by a listener and sent as the expected dictionary")
    func listenerSeesDictionary() throws {
        let (database, connection, seen, ref) = scriptedDatabase(at: "places/home")
        ref.observe(.value) { seen.add(text($0.value)) }
        try ref.setValue(from: Address(city: "Paris", zip: nil))
        database.waitForCallbacks()
        #expect(seen.take() == [#"{"city":"Paris"}"#])
        #expect(connection.writes.first?.data == .object(["city": .string("Paris")]))

        try ref.setValue(from: ["a": [1, 2], "b": [3]])
        database.waitForCallbacks()
        #expect(seen.take() == [#"{"a":[1,2],"b":[3]}"#])
    }

    @Test("data(as:) errors name the database path where decoding failed")
    func decodingErrorsNamePath() throws {
        let (database, connection) = makeDatabase()
        let snapshots = Snapshots()
        let ref = database.reference(withPath: "users/bob")
        ref.observe(.value) { snapshots.add($0) }
        database.waitForCallbacks()
        try connection.push("users/bob", #"{"city": "Oslo", "zip": 1234}"#)
        database.waitForCallbacks()
        let snapshot = try #require(snapshots.last)

        let mismatch = try #require(throws: DecodingError.self) { try snapshot.data(as: Address.self) }
        guard case .typeMismatch(_, let context) = mismatch else { Issue.record("\(mismatch)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["zip"])
        #expect(context.debugDescription == "Expected String at /users/bob/zip but found the number 1234.")

        let missing = try #require(throws: DecodingError.self) { try snapshot.data(as: Profile.self) }
        guard case .keyNotFound(let key, let keyContext) = missing else { Issue.record("\(missing)"); return }
        #expect(key.stringValue == "name")
        #expect(keyContext.debugDescription == "No value for the key 'name' at /users/bob.")

        let empty = snapshot.childSnapshot(forPath: "nothing")
        #expect(try empty.data(as: Address?.self) == nil)
        let absent = try #require(throws: DecodingError.self) { try empty.data(as: Address.self) }
        guard case .valueNotFound(_, let absentContext) = absent else { Issue.record("\(absent)"); return }
        #expect(absentContext.debugDescription == "Expected Address at /users/bob/nothing but there is no data.")
    }

    @Test("Numbers decode only into types that hold them exactly")
    func exactNumbers() throws {
        let decoder = Database.Decoder()
        #expect(try decoder.decode(Double.self, from: 3) == 3)
        #expect(try decoder.decode(Int.self, from: 3.0) == 3)
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: 3.5) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt8.self, from: 300) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: true) }
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: 1) }
    }

    @Test("A nil @ServerTimestamp writes a server timestamp that resolves to a number; a set date writes its milliseconds")
    func serverTimestamp() throws {
        let (database, connection) = makeDatabase(clock: { Date(timeIntervalSince1970: 1_000) })
        let snapshots = Snapshots()
        let ref = database.reference(withPath: "posts/p1")
        ref.observe(.value) { snapshots.add($0) }
        connection.connect(serverTimeOffset: 5_000)
        try ref.setValue(from: Post(text: "hi", at: nil))
        database.waitForCallbacks()
        #expect(connection.writes.first?.data == .object(["text": .string("hi"), "at": .object([".sv": .string("timestamp")])]))
        #expect(text(snapshots.last?.value) == #"{"at":1005000,"text":"hi"}"#)
        #expect(try snapshots.last?.data(as: Post.self) == Post(text: "hi", at: Date(timeIntervalSince1970: 1_005)))

        try ref.setValue(from: Post(text: "dated", at: Date(timeIntervalSince1970: 1_234.5)))
        database.waitForCallbacks()
        #expect(connection.writes.last?.data == .object(["text": .string("dated"), "at": .int(1_234_500)]))
        #expect(try snapshots.last?.data(as: Post.self).at == Date(timeIntervalSince1970: 1_234.5))
    }

    @Test("A @ServerTimestamp whose key is missing decodes as nil")
    func missingServerTimestamp() throws {
        #expect(try Database.Decoder().decode(Post.self, from: ["text": "no time"]) == Post(text: "no time", at: nil))
    }

    @Test("Values the database cannot store throw and nothing is written")
    func unsupportedValuesThrow() throws {
        let (database, connection) = makeDatabase()
        let ref = database.reference(withPath: "bad")
        #expect(throws: EncodingError.self) { try ref.setValue(from: ["x": Double.infinity]) }
        #expect(throws: EncodingError.self) { try ref.setValue(from: [Double.nan]) }
        #expect(throws: EncodingError.self) { try ref.setValue(from: UInt64.max) }
        var chain = Chain(next: nil)
        for _ in 0 ..< 40 { chain = Chain(next: chain) }
        let deep = try #require(throws: EncodingError.self) { try ref.setValue(from: chain) }
        guard case .invalidValue(_, let context) = deep else { Issue.record("\(deep)"); return }
        #expect(context.codingPath.count == 33)
        database.waitForCallbacks()
        #expect(connection.writes.isEmpty)
    }

    @Test("Data the write itself refuses (an invalid key) goes to the completion as with setValue")
    func invalidKeyGoesToCompletion() throws {
        let (database, connection) = makeDatabase()
        let seen = Recorder()
        try database.reference(withPath: "a").setValue(from: ["bad.key": 1]) { error in
            seen.add((error as NSError?)?.localizedFailureReason ?? "no error")
        }
        database.waitForCallbacks()
        #expect(seen.take() == ["invalid_argument"])
        #expect(connection.writes.isEmpty)
    }

    @Test("Strategies: snake_case keys, dates as milliseconds, data as Base64, non-finite numbers as strings")
    func strategies() throws {
        struct Record: Codable, Equatable {
            var userName: String
            var imageURLString: String
            var createdAt: Date
            var blob: Data
            var ratio: Double
        }
        let record = Record(
            userName: "u1", imageURLString: "x", createdAt: Date(timeIntervalSince1970: 1_700_000_000.5),
            blob: Data([0, 1, 254]), ratio: -.infinity)
        let encoder = Database.Encoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let encoded = try encoder.encode(record)
        #expect(text(encoded) == #"{"blob":"AAH+","created_at":1700000000500,"image_url_string":"x","ratio":"-inf","user_name":"u1"}"#)

        let decoder = Database.Decoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        var expected = record
        expected.imageURLString = "y"
        var renamed = try #require(encoded as? [String: Any])
        renamed["image_url_string"] = nil
        renamed["imageURLString"] = "y"
        #expect(try decoder.decode(Record.self, from: renamed) == expected)
        #expect(throws: DecodingError.self) { try Database.Decoder().decode(Record.self, from: encoded) }
    }
}
