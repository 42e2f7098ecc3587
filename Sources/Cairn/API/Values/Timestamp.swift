import CairnModel
import Foundation

/// A point in time with nanosecond precision, as Firestore stores it: seconds since the Unix epoch and
/// nanoseconds within the second. Timestamps read from Firestore are always this type (never `Date`).
///
/// ```swift
/// let now = Timestamp.now()
/// let t = Timestamp(seconds: 1_700_000_000, nanoseconds: 500)
/// let date = t.dateValue()
/// Timestamp(date: date) < now   // true
/// ```
///
/// Firestore stores 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999999999Z with nanoseconds in
/// 0...999,999,999. Firebase raises an exception when a timestamp outside that range is made; Cairn lets it be made
/// and reports `invalidArgument` (with the reason from ``validationProblem``) when it is written or queried.
public final class Timestamp: NSCopying, Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let seconds: Int64
    /// Nanoseconds within the second, 0...999,999,999.
    public let nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The timestamp of `date`, split as Firebase splits it: the whole seconds of `timeIntervalSince1970` (towards
    /// negative infinity) and the fraction's nanoseconds, truncated. The fraction keeps the `Double`'s error, so
    /// `1_700_000_000.123` gives 122999906 nanoseconds, as in Firebase. (A fraction so close to the next second that
    /// it reaches 1,000,000,000 nanoseconds, where Firebase raises an exception, carries into the seconds.)
    public convenience init(date: Date) {
        let interval = date.timeIntervalSince1970
        var whole = interval.rounded(.towardZero)
        var fraction = interval - whole
        if fraction < 0 {
            fraction += 1
            whole -= 1
        }
        var seconds = Int64(whole)
        var nanos = Int32(fraction * 1_000_000_000)
        if nanos == 1_000_000_000 {
            seconds += 1
            nanos = 0
        }
        self.init(seconds: seconds, nanoseconds: nanos)
    }

    /// The current time.
    public static func now() -> Timestamp { Timestamp(date: Date()) }

    /// The time as a `Date` (which loses precision below the microsecond).
    public func dateValue() -> Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// Why Firestore would reject this timestamp; `nil` when it is in range.
    public var validationProblem: String? { ValueRanges.problem(with: model) }

    /// Firebase's `NSCopying`: timestamps are immutable, so the copy is this timestamp (equal to it, as Firebase's).
    ///
    /// ```swift
    /// let copy = timestamp.copy() as! Timestamp
    /// ```
    public func copy(with zone: NSZone?) -> Any { self }

    /// A copy, as `NSObject.copy()` gives one.
    public func copy() -> Any { copy(with: nil) }

    /// Firebase's `compare(_:)`.
    public func compare(_ other: Timestamp) -> ComparisonResult {
        self < other ? .orderedAscending : (other < self ? .orderedDescending : .orderedSame)
    }

    public static func == (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds == b.seconds && a.nanoseconds == b.nanoseconds
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(seconds)
        hasher.combine(nanoseconds)
    }

    public var description: String { "<FIRTimestamp: seconds=\(seconds) nanoseconds=\(nanoseconds)>" }

    private enum CodingKeys: String, CodingKey {
        case seconds, nanoseconds
    }

    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            seconds: try container.decode(Int64.self, forKey: .seconds),
            nanoseconds: try container.decode(Int32.self, forKey: .nanoseconds))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(nanoseconds, forKey: .nanoseconds)
    }

    /// The data model's timestamp.
    var model: CairnModel.Timestamp { CairnModel.Timestamp(seconds: seconds, nanoseconds: nanoseconds) }

    convenience init(_ model: CairnModel.Timestamp) {
        self.init(seconds: model.seconds, nanoseconds: model.nanoseconds)
    }
}
