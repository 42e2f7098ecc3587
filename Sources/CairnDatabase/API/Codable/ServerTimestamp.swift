import CairnDatabaseCore
import Foundation

/// A `Date?` property written as the server's time when it is `nil`: ``Database/Encoder`` writes
/// `ServerValue.timestamp()` for it, which the server (and Cairn's optimistic events, with the server time offset)
/// replaces by milliseconds since 1970; a set date is written as its milliseconds since 1970. Decoding reads the
/// milliseconds back as a `Date`.
///
/// ```swift
/// struct Message: Codable {
///     var text: String
///     @ServerTimestamp var sentAt: Date?
/// }
/// try ref.childByAutoId().setValue(from: Message(text: "Hi"))   // sentAt: {".sv": "timestamp"}
/// ```
@propertyWrapper
public struct ServerTimestamp: Codable, Equatable, Hashable, Sendable {
    public var wrappedValue: Date?

    public init(wrappedValue: Date?) {
        self.wrappedValue = wrappedValue
    }

    /// `nil` for no data, otherwise the stored number of milliseconds since 1970.
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : Date(timeIntervalSince1970: try container.decode(Double.self) / 1000)
    }

    /// The milliseconds since 1970 of the date, or the server timestamp placeholder for `nil`.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        switch try json(at: encoder.codingPath) {
        case .int(let milliseconds): try container.encode(milliseconds)
        default: try container.encode([".sv": "timestamp"])
        }
    }

    /// What ``Database/Encoder`` writes: whole milliseconds since 1970, or `{".sv": "timestamp"}`; a date whose
    /// milliseconds do not fit in an Int64 is `EncodingError.invalidValue`.
    func json(at codingPath: [any CodingKey]) throws -> JSONValue {
        guard let wrappedValue else { return .object([".sv": .string("timestamp")]) }
        guard let milliseconds = Int64(exactly: (wrappedValue.timeIntervalSince1970 * 1000).rounded(.down)) else {
            throw EncodingError.invalidValue(wrappedValue, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "The date at \(DatabaseCodingKeys.describe(codingPath)) is too far from 1970 to store in milliseconds."))
        }
        return .int(milliseconds)
    }
}

extension KeyedDecodingContainer {
    /// A missing key decodes as a `nil` ``ServerTimestamp`` (the database stores no nulls), not `keyNotFound`.
    public func decode(_ type: ServerTimestamp.Type, forKey key: Key) throws -> ServerTimestamp {
        try decodeIfPresent(type, forKey: key) ?? ServerTimestamp(wrappedValue: nil)
    }
}
