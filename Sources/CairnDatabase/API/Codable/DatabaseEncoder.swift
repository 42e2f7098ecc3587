import Foundation

extension Database {
    /// Encodes `Encodable` values into the values ``DatabaseReference/setValue(_:)`` takes (`[String: Any]`, `[Any]`,
    /// `String`, numbers, `Bool`, `NSNull`), as ``DatabaseReference/setValue(from:encoder:completion:)`` does.
    ///
    /// Optionals that are `nil` are left out of their object (the Realtime Database has no stored null); a `nil`
    /// ``ServerTimestamp`` becomes `ServerValue.timestamp()`. Values nested deeper than the database allows (32
    /// levels) stop the encoding with `EncodingError.invalidValue` instead of recursing on, so a self-referencing
    /// structure cannot exhaust the stack; so does a non-finite `Double` under the default
    /// ``nonConformingFloatEncodingStrategy``.
    ///
    /// ```swift
    /// struct User: Codable { var name: String; var joined: Date }
    /// let encoder = Database.Encoder()
    /// encoder.dateEncodingStrategy = .millisecondsSince1970
    /// let value = try encoder.encode(User(name: "Ada", joined: Date()))   // ["name": "Ada", "joined": 1764115200000]
    /// ```
    public final class Encoder: @unchecked Sendable {
        /// How `Date` values are written.
        public enum DateEncodingStrategy {
            /// The `Date`'s own encoding: seconds since 1 January 2001, a `Double`.
            case deferredToDate
            /// Seconds since 1970, a `Double`.
            case secondsSince1970
            /// Milliseconds since 1970, a `Double` (an integer when whole), as server timestamps are stored.
            case millisecondsSince1970
            /// An ISO 8601 string (`2026-11-26T01:00:00Z`).
            case iso8601
            /// A string from the formatter.
            case formatted(DateFormatter)
            /// Whatever the closure encodes into the encoder it gets.
            case custom((Date, any Swift.Encoder) throws -> Void)
        }

        /// How `Data` values are written.
        public enum DataEncodingStrategy {
            /// The `Data`'s own encoding: an array of bytes.
            case deferredToData
            /// A Base64 string.
            case base64
            /// Whatever the closure encodes into the encoder it gets.
            case custom((Data, any Swift.Encoder) throws -> Void)
        }

        /// What to do with infinities and NaN, which the database cannot store.
        public enum NonConformingFloatEncodingStrategy {
            /// Throw `EncodingError.invalidValue`.
            case `throw`
            /// Write these strings instead.
            case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
        }

        /// How property names become keys.
        public enum KeyEncodingStrategy {
            /// The names as they are.
            case useDefaultKeys
            /// `camelCase` names as `snake_case` keys (`userID` → `user_id`).
            case convertToSnakeCase
            /// The key the closure returns for the coding path (whose last element is the key being written).
            case custom((_ codingPath: [any CodingKey]) -> any CodingKey)
        }

        /// Defaults to `.deferredToDate`, as Firebase's.
        public var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
        /// Defaults to `.base64`, as Firebase's.
        public var dataEncodingStrategy: DataEncodingStrategy = .base64
        /// Defaults to `.throw`.
        public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw
        /// Defaults to `.useDefaultKeys`.
        public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
        /// Passed to every `encode(to:)` as `encoder.userInfo`.
        public var userInfo: [CodingUserInfoKey: Any] = [:]

        public init() {}

        /// The database value of `value`: `NSNull` for `nil` or a value that encodes nothing.
        public func encode<T: Encodable>(_ value: T) throws -> Any {
            let options = DatabaseValueEncoder.Options(
                date: dateEncodingStrategy, data: dataEncodingStrategy, float: nonConformingFloatEncodingStrategy,
                key: keyEncodingStrategy, userInfo: userInfo)
            let json = try DatabaseValueEncoder.encode(value, codingPath: [], options: options)
            return json.flatMap(DatabaseValues.any) ?? NSNull()
        }
    }
}
