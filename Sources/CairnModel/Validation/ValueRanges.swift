/// The ranges Firestore accepts for timestamps and geographical points.
///
/// Timestamps: 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999999999Z, nanoseconds 0...999,999,999
/// (Firestore data types, https://firebase.google.com/docs/firestore/manage-data/data-types; the SDKs'
/// `Timestamp::ValidateBounds` in firebase-ios-sdk `Firestore/core/src/timestamp.cc`, whose messages these
/// follow). GeoPoints: latitude in [-90, 90], longitude in [-180, 180], never NaN (firebase-js-sdk
/// `lite-api/geo_point.ts`, which also rejects infinities).
///
/// ```swift
/// ValueRanges.problem(with: Timestamp(seconds: 0, nanoseconds: 1_000_000_000))
/// // "Timestamp nanoseconds out of range: 1000000000. ..."
/// ValueRanges.problem(with: GeoPoint(latitude: 91, longitude: 0))
/// // "Latitude must be a number between -90 and 90, but was: 91.0."
/// ```
package enum ValueRanges {
    /// 0001-01-01T00:00:00Z in seconds since the Unix epoch.
    static let minTimestampSeconds: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z in seconds since the Unix epoch (the last second Firestore can store).
    static let maxTimestampSeconds: Int64 = 253_402_300_799

    /// Why Firestore would reject `timestamp`, or `nil` when it is in range.
    package static func problem(with timestamp: Timestamp) -> String? {
        if !(0...999_999_999).contains(timestamp.nanoseconds) {
            return "Timestamp nanoseconds out of range: \(timestamp.nanoseconds). "
                + "Nanoseconds must be from 0 through 999,999,999; carry whole seconds into `seconds`."
        }
        if !(minTimestampSeconds...maxTimestampSeconds).contains(timestamp.seconds) {
            return "Timestamp seconds out of range: \(timestamp.seconds). Firestore stores timestamps from "
                + "0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999999999Z."
        }
        return nil
    }

    /// Why Firestore would reject `point`, or `nil` when it is in range.
    package static func problem(with point: GeoPoint) -> String? {
        if !(-90.0...90.0).contains(point.latitude) {
            return "Latitude must be a number between -90 and 90, but was: \(point.latitude)."
        }
        if !(-180.0...180.0).contains(point.longitude) {
            return "Longitude must be a number between -180 and 180, but was: \(point.longitude)."
        }
        return nil
    }
}
