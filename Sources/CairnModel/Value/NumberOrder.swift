/// Firestore's order of numbers: integers and doubles compared by their exact mathematical value.
///
/// Rules (the Firebase SDKs' `compareNumbers` / `CompareMixedNumber`):
/// - NaN sorts before every other number, including -infinity, and compares equal to every NaN.
/// - -0.0 and 0.0 compare equal (ordering only; ``Value`` equality tells them apart).
/// - An integer and a double compare exactly, with no rounding: `Int64.max` (2^63 - 1) sorts before the double
///   9223372036854775808.0 (2^63) even though `Double(Int64.max)` rounds to that double.
///
/// ```swift
/// NumberOrder.compare(Int64.max, 0x1p63)        // -1
/// NumberOrder.compare(Double.nan, -.infinity)    // -1
/// NumberOrder.compare(-0.0, 0.0)                 // 0
/// ```
enum NumberOrder {
    /// Compares two doubles: NaN first and equal to itself, -0.0 == 0.0; returns -1, 0 or 1.
    static func compare(_ a: Double, _ b: Double) -> Int {
        if a < b { return -1 }
        if a > b { return 1 }
        if a == b { return 0 }
        // At least one is NaN.
        if a.isNaN { return b.isNaN ? 0 : -1 }
        return 1
    }

    /// Compares two integers; returns -1, 0 or 1.
    static func compare(_ a: Int64, _ b: Int64) -> Int {
        a == b ? 0 : (a < b ? -1 : 1)
    }

    /// Compares an integer with a double exactly; returns -1, 0 or 1.
    ///
    /// Converting the integer to a double would round above 2^53, so instead the double is split into its
    /// integral part (exact as an `Int64` once it is known to be in range) and its fraction.
    static func compare(_ integer: Int64, _ double: Double) -> Int {
        if double.isNaN { return 1 }
        // Every Int64 lies in [-2^63, 2^63); both bounds are exact doubles.
        if double < -0x1p63 { return 1 }
        if double >= 0x1p63 { return -1 }
        let integral = double.rounded(.towardZero)
        let integralValue = Int64(integral)
        if integer != integralValue { return integer < integralValue ? -1 : 1 }
        let fraction = double - integral
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    /// Compares a double with an integer exactly; returns -1, 0 or 1.
    static func compare(_ double: Double, _ integer: Int64) -> Int {
        -compare(integer, double)
    }
}
