import CairnDatabaseCore
import Foundation

extension Database {
    /// Decodes `Decodable` values from the values snapshots give (``DataSnapshot/value``), as
    /// ``DataSnapshot/data(as:decoder:)`` does.
    ///
    /// Numbers decode as any numeric type that holds them exactly (`3` as a `Double`, `3.0` as an `Int`, never
    /// `3.5` as an `Int`); a missing key decodes as `nil` for an optional property and is an error naming the
    /// path otherwise. A ``ServerTimestamp`` decodes from the stored milliseconds.
    ///
    /// ```swift
    /// struct User: Codable { var name: String; var age: Int? }
    /// let user = try Database.Decoder().decode(User.self, from: ["name": "Ada"])
    /// ```
    public final class Decoder: @unchecked Sendable {
        /// How `Date` values are read.
        public enum DateDecodingStrategy {
            /// The `Date`'s own decoding: seconds since 1 January 2001.
            case deferredToDate
            /// Seconds since 1970.
            case secondsSince1970
            /// Milliseconds since 1970 (as server timestamps are stored).
            case millisecondsSince1970
            /// An ISO 8601 string.
            case iso8601
            /// A string read by the formatter.
            case formatted(DateFormatter)
            /// The date the closure reads from the decoder it gets.
            case custom((_ decoder: any Swift.Decoder) throws -> Date)
        }

        /// How `Data` values are read.
        public enum DataDecodingStrategy {
            /// The `Data`'s own decoding: an array of bytes.
            case deferredToData
            /// A Base64 string.
            case base64
            /// The data the closure reads from the decoder it gets.
            case custom((_ decoder: any Swift.Decoder) throws -> Data)
        }

        /// How strings stand for infinities and NaN.
        public enum NonConformingFloatDecodingStrategy {
            /// No string is a number.
            case `throw`
            /// These strings are the infinities and NaN.
            case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
        }

        /// How keys become property names.
        public enum KeyDecodingStrategy {
            /// The keys as they are.
            case useDefaultKeys
            /// `snake_case` keys as `camelCase` names (`user_id` → `userId`).
            case convertFromSnakeCase
            /// The name the closure returns for the coding path (whose last element is the key found in the data).
            case custom((_ codingPath: [any CodingKey]) -> any CodingKey)
        }

        /// Defaults to `.deferredToDate`, as Firebase's.
        public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
        /// Defaults to `.base64`, as Firebase's.
        public var dataDecodingStrategy: DataDecodingStrategy = .base64
        /// Defaults to `.throw`.
        public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw
        /// Defaults to `.useDefaultKeys`.
        public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
        /// Passed to every `init(from:)` as `decoder.userInfo`.
        public var userInfo: [CodingUserInfoKey: Any] = [:]

        public init() {}

        /// A `T` from `value` (what ``DataSnapshot/value`` gives; `NSNull` for no data). A value that is not
        /// database data (another type, a non-string key) is `DecodingError.dataCorrupted`.
        public func decode<T: Decodable>(_ type: T.Type, from value: Any) throws -> T {
            try decode(type, from: value, at: nil)
        }

        /// As ``decode(_:from:)``; error messages name paths below `location` (the snapshot's path).
        func decode<T: Decodable>(_ type: T.Type, from value: Any, at location: DatabasePath?) throws -> T {
            let json: JSONValue
            do throws(DatabaseCoreError) { json = try DatabaseValues.json(value, at: "/") } catch {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.message))
            }
            let options = DatabaseValueDecoder.Options(
                date: dateDecodingStrategy, data: dataDecodingStrategy, float: nonConformingFloatDecodingStrategy,
                key: keyDecodingStrategy, userInfo: userInfo, location: location)
            return try DatabaseValueDecoder(value: json, codingPath: [], options: options).decodeValue(T.self)
        }
    }
}
