import CairnCore
import Cairn
import CairnTestSupport
import Foundation
import Testing

/// The official Python client (`google-cloud-firestore`) as a second client of the emulator: the peer script
/// `Interop/firestore_peer.py`, run with the venv that `make interop-venv` builds in `.venv-interop` (or the
/// interpreter in `$CAIRN_INTEROP_PYTHON`). Values cross the process boundary as typed JSON (``PeerValue``).
enum InteropPeer {
    /// The repository's root: this file is Tests/CairnGRPCTests/InteropPeerForTests.swift.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let python: String =
        ProcessInfo.processInfo.environment["CAIRN_INTEROP_PYTHON"] ?? root.appendingPathComponent(".venv-interop/bin/python").path

    static let script = root.appendingPathComponent("Tests/CairnGRPCTests/Interop/firestore_peer.py").path

    /// Why the peer cannot run here, nil when it can.
    static var missingReason: String? {
        FileManager.default.isExecutableFile(atPath: python)
            ? nil : "the Python interop venv is missing (\(python)); run `make interop-venv`"
    }

    /// Like the emulator: skipped with one line when missing, run (and failing) under `CI=true`.
    static let shouldRun = missingReason == nil || FirestoreEmulator.isCI
    static let skipReason = Comment(
        rawValue: "Python interop tests skipped: \(missingReason ?? "the venv is available"); set CI=true to make this a failure")

    /// Sets the document at `path` to `fields` with the Python client.
    static func write(_ fields: [String: PeerValue], to path: String, project: String, emulator: FirestoreEmulator) async throws {
        let outcome = try await run(["write", path], input: try JSONEncoder().encode(fields), project: project, emulator: emulator)
        #expect(outcome.status == 0, "the Python write failed: \(outcome)")
    }

    /// The fields of the document at `path` as the Python client reads it, nil when it does not exist.
    static func read(_ path: String, project: String, emulator: FirestoreEmulator) async throws -> [String: PeerValue]? {
        struct Answer: Decodable {
            var exists: Bool
            var fields: [String: PeerValue]
        }
        let outcome = try await run(["read", path], input: Data(), project: project, emulator: emulator)
        try #require(outcome.status == 0, "the Python read failed: \(outcome)")
        let answer = try JSONDecoder().decode(Answer.self, from: Data((outcome.lines.last ?? "").utf8))
        return answer.exists ? answer.fields : nil
    }

    /// A data bundle the Python client builds (`FirestoreBundle`) with the named query `collection` (the
    /// collection ordered by `n`) and its documents as the server has them now.
    static func bundle(of collection: String, project: String, emulator: FirestoreEmulator) async throws -> Data {
        struct Answer: Decodable { var bundle: String }
        let outcome = try await run(["bundle", collection], input: Data(), project: project, emulator: emulator)
        try #require(outcome.status == 0, "the Python bundle failed: \(outcome)")
        return Data(try JSONDecoder().decode(Answer.self, from: Data((outcome.lines.last ?? "").utf8)).bundle.utf8)
    }

    private static func run(
        _ arguments: [String], input: Data, project: String, emulator: FirestoreEmulator
    ) async throws -> ChildProcess.Outcome {
        try #require(missingReason == nil, "\(missingReason ?? "")")
        return try await ChildProcess(
            executable: python, arguments: [script, project] + arguments,
            environment: ["FIRESTORE_EMULATOR_HOST": emulator.hostAndPort, "PYTHONDONTWRITEBYTECODE": "1"],
            input: input
        ).run()
    }
}

/// A Firestore value with its type kept exact across Swift, JSON and Python: `{"integer": 1}` and
/// `{"double": 1.0}` stay apart, timestamps keep their fraction.
indirect enum PeerValue: Equatable, Codable, Sendable, CustomStringConvertible {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case timestamp(seconds: Int64, nanos: Int32)
    case array([PeerValue])
    case map([String: PeerValue])
    /// A vector: `VectorValue` in Swift, `Vector` in Python.
    case vector([Double])

    /// The value as Firebase's API takes it in `setData`.
    var api: Any {
        switch self {
        case .null: NSNull()
        case .boolean(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .string(let value): value
        case .timestamp(let seconds, let nanos): Cairn.Timestamp(seconds: seconds, nanoseconds: nanos)
        case .array(let elements): elements.map(\.api)
        case .map(let fields): fields.mapValues(\.api)
        case .vector(let elements): VectorValue(elements)
        }
    }

    /// A value as Firebase's API returns it from `data()` (numbers and booleans as `NSNumber`, told apart by
    /// their type encoding); a type this sample does not use is an error naming it.
    init(api value: Any) throws {
        switch value {
        case is NSNull: self = .null
        case let string as String: self = .string(string)
        case let timestamp as Cairn.Timestamp: self = .timestamp(seconds: timestamp.seconds, nanos: timestamp.nanoseconds)
        case let vector as VectorValue: self = .vector(vector.array)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": self = .boolean(number.boolValue)
            case "d", "f": self = .double(number.doubleValue)
            default: self = .integer(number.int64Value)
            }
        case let elements as [Any]: self = .array(try elements.map(PeerValue.init(api:)))
        case let fields as [String: Any]: self = .map(try fields.mapValues(PeerValue.init(api:)))
        default:
            throw FirestoreErrorCode(.invalidArgument, "PeerValue has no case for \(type(of: value)): \(value)")
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .boolean(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)d"
        case .string(let value): value.debugDescription
        case .timestamp(let seconds, let nanos): "ts(\(seconds).\(nanos))"
        case .array(let elements): "\(elements)"
        case .map(let fields): "\(fields)"
        case .vector(let elements): "vector\(elements)"
        }
    }

    private enum Kind: String, CodingKey {
        case null, boolean, integer, double, string, timestamp, array, map, vector
    }

    private struct Stamp: Codable {
        var seconds: Int64
        var nanos: Int32
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not one typed value"))
        }
        switch kind {
        case .null: self = .null
        case .boolean: self = .boolean(try container.decode(Bool.self, forKey: kind))
        case .integer: self = .integer(try container.decode(Int64.self, forKey: kind))
        case .double: self = .double(try container.decode(Double.self, forKey: kind))
        case .string: self = .string(try container.decode(String.self, forKey: kind))
        case .timestamp:
            let stamp = try container.decode(Stamp.self, forKey: kind)
            self = .timestamp(seconds: stamp.seconds, nanos: stamp.nanos)
        case .array: self = .array(try container.decode([PeerValue].self, forKey: kind))
        case .map: self = .map(try container.decode([String: PeerValue].self, forKey: kind))
        case .vector: self = .vector(try container.decode([Double].self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .null: try container.encodeNil(forKey: .null)
        case .boolean(let value): try container.encode(value, forKey: .boolean)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .double(let value): try container.encode(value, forKey: .double)
        case .string(let value): try container.encode(value, forKey: .string)
        case .timestamp(let seconds, let nanos): try container.encode(Stamp(seconds: seconds, nanos: nanos), forKey: .timestamp)
        case .array(let elements): try container.encode(elements, forKey: .array)
        case .map(let fields): try container.encode(fields, forKey: .map)
        case .vector(let elements): try container.encode(elements, forKey: .vector)
        }
    }
}
